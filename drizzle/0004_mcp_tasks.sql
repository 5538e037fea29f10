CREATE TABLE `mcp_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`principal` text NOT NULL,
	`status` text NOT NULL,
	`status_message` text,
	`tool` text NOT NULL,
	`args` text NOT NULL,
	`scope` text NOT NULL,
	`call_id` text NOT NULL,
	`run_id` text NOT NULL,
	`approval_id` text,
	`result` text,
	`ttl_ms` integer NOT NULL,
	`poll_interval_ms` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`lease_until` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mcp_tasks_principal_idx` ON `mcp_tasks` (`principal`,`created_at`);--> statement-breakpoint
CREATE INDEX `mcp_tasks_approval_idx` ON `mcp_tasks` (`approval_id`);--> statement-breakpoint
CREATE INDEX `mcp_tasks_expiry_idx` ON `mcp_tasks` (`expires_at`);