CREATE TABLE "source_documents" (
	"source_id" text PRIMARY KEY NOT NULL,
	"document" text NOT NULL,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL,
	"updated_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
ALTER TABLE "source_documents" ADD CONSTRAINT "source_documents_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Hand-added: the documents stored so far move to the new table before their column goes.
INSERT INTO "source_documents" ("source_id", "document", "created_at", "updated_at")
  SELECT "id", "document", "created_at", "updated_at" FROM "sources" WHERE "document" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "sources" DROP COLUMN "document";