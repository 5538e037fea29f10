-- call_results' primary key puts the call id before the scope (see lib/db/schema.ts). SQLite cannot
-- change a primary key in place: the table is copied, in its insertion order (the tool history
-- breaks ties within a millisecond by rowid).
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_call_results` (
	`principal` text NOT NULL,
	`scope` text NOT NULL,
	`call_id` text NOT NULL,
	`tool` text NOT NULL,
	`args_digest` text NOT NULL,
	`args` text,
	`result` text NOT NULL,
	`duration_ms` integer DEFAULT 0 NOT NULL,
	`pinned` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`principal`, `call_id`, `scope`, `tool`, `args_digest`)
);
--> statement-breakpoint
INSERT INTO `__new_call_results`("principal", "scope", "call_id", "tool", "args_digest", "args", "result", "duration_ms", "pinned", "created_at", "updated_at") SELECT "principal", "scope", "call_id", "tool", "args_digest", "args", "result", "duration_ms", "pinned", "created_at", "updated_at" FROM `call_results` ORDER BY rowid;--> statement-breakpoint
DROP TABLE `call_results`;--> statement-breakpoint
ALTER TABLE `__new_call_results` RENAME TO `call_results`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `call_results_tool_idx` ON `call_results` (`tool`,`created_at`);