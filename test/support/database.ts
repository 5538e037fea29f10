import path from "node:path";
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
