// Migrations 0010 (SQLite) and 0002 (PostgreSQL) move each source's document out of the sources row
// into source_documents: a database made before them keeps every document, and the column is gone.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db";
import { openPostgres } from "@/lib/db/postgres/open";
import { PgSourceRows } from "@/lib/db/postgres/sources";
import { SourceStore } from "@/lib/db/sources";
import { migrationsBefore } from "../support/database";
import { tempDir } from "../support/services";
import { postgresDatabase } from "../support/postgres";

const root = path.resolve(__dirname, "../..");
const document = JSON.stringify({ openapi: "3.0.0", info: { title: "Pets ✓", version: "1" } });

describe("source documents move to their own table", () => {
  it("on SQLite", async () => {
    const file = path.join(tempDir(), "console.db");
    const before = openDatabase(file, { migrationsFolder: migrationsBefore(path.join(root, "drizzle"), "0010_source_documents") });
    const insert = before.sqlite.prepare("insert into sources (id, kind, name, location, document) values (?, 'openapi', ?, 'pasted', ?)");
    insert.run("src_a", "With a document", document);
    insert.run("src_b", "Without", null);
    before.close();

    const after = openDatabase(file);
    try {
      const sources = new SourceStore(after.db);
      expect(await sources.document("src_a")).toBe(document);
      expect(await sources.document("src_b")).toBeNull();
      const columns = after.sqlite.prepare("select name from pragma_table_info('sources')").all() as Array<{ name: string }>;
      expect(columns.map((c) => c.name)).not.toContain("document");
    } finally {
      after.close();
    }
  });

  describe("on PostgreSQL", () => {
    const database = postgresDatabase();

    it("keeps every document", async () => {
      const before = await openPostgres(database.url, {
        migrationsFolder: migrationsBefore(path.join(root, "drizzle-pg"), "0002_source_documents"),
        onConnectionError: () => {},
      });
      await before.pool.query(
        "insert into sources (id, kind, name, location, document) values ('src_a', 'openapi', 'With', 'pasted', $1), ('src_b', 'openapi', 'Without', 'pasted', null)",
        [document],
      );
      await before.close();

      const after = await openPostgres(database.url, { onConnectionError: () => {} });
      try {
        const sources = new SourceStore(new PgSourceRows(after.db, { url: database.url }));
        expect(await sources.document("src_a")).toBe(document);
        expect(await sources.document("src_b")).toBeNull();
        const { rows } = await after.pool.query("select column_name from information_schema.columns where table_name = 'sources'");
        expect(rows.map((r: { column_name: string }) => r.column_name)).not.toContain("document");
      } finally {
        await after.close();
      }
    });
  });
});
