CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`hash` text NOT NULL,
	`scopes` text NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_hash_unique` ON `api_tokens` (`hash`);--> statement-breakpoint
CREATE TABLE `approval_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`approval_id` text NOT NULL,
	`type` text NOT NULL,
	`actor` text NOT NULL,
	`data` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`approval_id`) REFERENCES `approvals`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `approval_events_approval_idx` ON `approval_events` (`approval_id`,`id`);--> statement-breakpoint
CREATE TABLE `approvals` (
	`id` text PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`principal` text NOT NULL,
	`scope` text NOT NULL,
	`call_id` text NOT NULL,
	`run_id` text,
	`thread_id` text,
	`surface` text NOT NULL,
	`tool` text NOT NULL,
	`args` text NOT NULL,
	`args_digest` text NOT NULL,
	`message` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`decided_by` text,
	`decided_at` integer,
	`reason` text,
	`edited_args` text,
	`expires_at` integer NOT NULL,
	`consumed_at` integer,
	`result` text,
	`ran_at` integer,
	`answered_at` integer,
	`answered_run_id` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `approvals_key_idx` ON `approvals` (`key`);--> statement-breakpoint
CREATE INDEX `approvals_status_idx` ON `approvals` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `approvals_thread_idx` ON `approvals` (`thread_id`);--> statement-breakpoint
CREATE INDEX `approvals_created_idx` ON `approvals` (`created_at`);--> statement-breakpoint
CREATE TABLE `call_results` (
	`principal` text NOT NULL,
	`scope` text NOT NULL,
	`call_id` text NOT NULL,
	`tool` text NOT NULL,
	`args_digest` text NOT NULL,
	`result` text NOT NULL,
	`duration_ms` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`principal`, `scope`, `call_id`, `tool`, `args_digest`)
);
--> statement-breakpoint
CREATE INDEX `call_results_tool_idx` ON `call_results` (`tool`,`created_at`);--> statement-breakpoint
CREATE TABLE `run_events` (
	`run_id` text NOT NULL,
	`seq` integer NOT NULL,
	`type` text NOT NULL,
	`event` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`run_id`, `seq`),
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`thread_id` text NOT NULL,
	`agent` text NOT NULL,
	`principal` text NOT NULL,
	`surface` text DEFAULT 'agui' NOT NULL,
	`status` text NOT NULL,
	`outcome` text,
	`error` text,
	`parent_run_id` text,
	`tool_call_count` integer DEFAULT 0 NOT NULL,
	`usage` text,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`thread_id`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `runs_thread_idx` ON `runs` (`thread_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `runs_started_idx` ON `runs` (`started_at`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`location` text NOT NULL,
	`auth_ref` text,
	`auth_secret` text,
	`options` text DEFAULT '{}' NOT NULL,
	`document` text,
	`status` text DEFAULT 'ok' NOT NULL,
	`status_message` text,
	`last_refresh_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `threads` (
	`id` text PRIMARY KEY NOT NULL,
	`agent` text NOT NULL,
	`title` text,
	`principal` text NOT NULL,
	`state` text,
	`messages` text DEFAULT '[]' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `threads_updated_idx` ON `threads` (`updated_at`);--> statement-breakpoint
CREATE TABLE `tools` (
	`name` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`input_schema` text NOT NULL,
	`output_schema` text,
	`confirm` integer DEFAULT false NOT NULL,
	`effects` text DEFAULT 'read' NOT NULL,
	`idempotent` integer DEFAULT false NOT NULL,
	`open_world` integer DEFAULT false NOT NULL,
	`timeout_ms` integer NOT NULL,
	`retries` integer DEFAULT 0 NOT NULL,
	`targets` text NOT NULL,
	`tags` text NOT NULL,
	`kind` text NOT NULL,
	`source_id` text,
	`binding` text,
	`enabled` integer DEFAULT true NOT NULL,
	`approval` text DEFAULT 'default' NOT NULL,
	`digest` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tools_source_idx` ON `tools` (`source_id`);--> statement-breakpoint
CREATE INDEX `tools_kind_idx` ON `tools` (`kind`);