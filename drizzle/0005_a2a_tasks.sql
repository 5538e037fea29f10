CREATE TABLE `a2a_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`principal` text NOT NULL,
	`context_id` text NOT NULL,
	`state` integer NOT NULL,
	`task` text NOT NULL,
	`parked` text,
	`approval_id` text,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `a2a_tasks_principal_idx` ON `a2a_tasks` (`principal`,`updated_at`);--> statement-breakpoint
CREATE INDEX `a2a_tasks_approval_idx` ON `a2a_tasks` (`approval_id`);--> statement-breakpoint
CREATE INDEX `a2a_tasks_expiry_idx` ON `a2a_tasks` (`expires_at`);