CREATE TABLE `source_documents` (
	`source_id` text PRIMARY KEY NOT NULL,
	`document` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Hand-added: the documents stored so far move to the new table before their column goes.
INSERT INTO `source_documents` (`source_id`, `document`, `created_at`, `updated_at`)
  SELECT `id`, `document`, `created_at`, `updated_at` FROM `sources` WHERE `document` IS NOT NULL;
--> statement-breakpoint
ALTER TABLE `sources` DROP COLUMN `document`;