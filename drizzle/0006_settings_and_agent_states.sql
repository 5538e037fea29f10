CREATE TABLE `agent_states` (
	`agent` text NOT NULL,
	`thread_id` text NOT NULL,
	`key` text NOT NULL,
	`run_id` text NOT NULL,
	`status` text NOT NULL,
	`value` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`agent`, `thread_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `agent_states_thread_idx` ON `agent_states` (`thread_id`,`updated_at`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_by` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
