CREATE TABLE `approval_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`tool` text NOT NULL,
	`thread_id` text NOT NULL,
	`tool_digest` text NOT NULL,
	`granted_by` text NOT NULL,
	`approval_id` text,
	`revoked_at` integer,
	`revoked_by` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `approval_grants_lookup_idx` ON `approval_grants` (`tool`,`thread_id`);--> statement-breakpoint
CREATE TABLE `tool_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tool` text NOT NULL,
	`type` text NOT NULL,
	`actor` text NOT NULL,
	`data` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tool_events_tool_idx` ON `tool_events` (`tool`,`id`);--> statement-breakpoint
ALTER TABLE `call_results` ADD `args` text;--> statement-breakpoint
ALTER TABLE `call_results` ADD `pinned` integer DEFAULT false NOT NULL;