import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db";
import { tempDir } from "./services";

/** A fresh SQLite file with migrations applied, in its own temporary directory. */
export function freshDatabase(): DatabaseHandle {
  return openDatabase(path.join(tempDir(), "console.db"));
}

/** Rows of a table counted straight from SQLite, past any in-memory copy. */
export function countRows(handle: DatabaseHandle, table: string, where = "1 = 1", ...params: unknown[]): number {
  return (handle.sqlite.prepare(`select count(*) as n from ${table} where ${where}`).get(...params) as { n: number }).n;
}

/**
 * A copy of the migrations folder `from` (drizzle or drizzle-pg) whose journal stops just before
 * the migration tagged `tag`: a database opened with it is one made before that migration.
 */
export function migrationsBefore(from: string, tag: string): string {
  const folder = path.join(tempDir(), path.basename(from));
  fs.cpSync(from, folder, { recursive: true });
  const journalFile = path.join(folder, "meta", "_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalFile, "utf8")) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((entry) => entry.tag === tag);
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return folder;
}
