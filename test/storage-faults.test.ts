import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { storageFaultOf } from "@/lib/errors/storage-fault";
import { errorAnswer } from "@/lib/http/handler";
import { createLogger } from "@/lib/log";
import { freshDatabase } from "./support/database";
import { tempDir } from "./support/services";

/** The error a statement throws, caught. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected the statement to throw");
}

const handle = freshDatabase();
afterAll(() => handle.close());

describe("errors the storage engine raises because the database cannot be used", () => {
  it("a write on a read-only connection (SQLITE_READONLY) answers 503 database_unavailable", async () => {
    const readOnly = new Database(handle.path, { readonly: true });
    try {
      const error = thrownBy(() => readOnly.prepare("insert into api_tokens (id) values ('x')").run());
      expect((error as { code?: string }).code).toBe("SQLITE_READONLY");
      const lines: string[] = [];
      const answer = errorAnswer(
        error,
        new Request("http://127.0.0.1/api/x"),
        createLogger("error", (line) => lines.push(line)),
      );
      expect(answer.status).toBe(503);
      expect(await answer.json()).toEqual({ error: { code: "database_unavailable", message: expect.stringMatching(/read-only/) } });
      // The driver's own words stay in the log.
      expect(lines.join("\n")).toContain("readonly");
    } finally {
      readOnly.close();
    }
  });

  it("a write while another process holds the lock (SQLITE_BUSY), also under drizzle's query wrapper, answers 503", async () => {
    const other = new Database(handle.path);
    const mine = new Database(handle.path);
    try {
      mine.pragma("busy_timeout = 0");
      other.exec("begin exclusive");
      const raw = thrownBy(() => mine.prepare("insert into api_tokens (id) values ('y')").run());
      expect((raw as { code?: string }).code).toBe("SQLITE_BUSY");
      const wrapped = thrownBy(() => drizzle(mine).run(sql`insert into api_tokens (id) values ('z')`));
      expect(wrapped).not.toHaveProperty("code");
      for (const error of [raw, wrapped]) {
        const answer = errorAnswer(error, new Request("http://127.0.0.1/api/x"), createLogger("silent"));
        expect(answer.status).toBe(503);
        expect(await answer.json()).toEqual({
          error: { code: "database_unavailable", message: "The database is locked by another process; try again in a moment" },
        });
      }
    } finally {
      other.exec("rollback");
      other.close();
      mine.close();
    }
  });

  it("extended codes count as their primary code; a broken request does not", () => {
    const moved = Object.assign(new Error("moved"), { code: "SQLITE_READONLY_DBMOVED" });
    expect(storageFaultOf(moved)?.kind).toBe("database_unavailable");
    expect(storageFaultOf(Object.assign(new Error("disk"), { code: "SQLITE_IOERR_WRITE" }))?.message).toMatch(/disk error/);
    const constraint = thrownBy(() => handle.sqlite.prepare("insert into api_tokens (id) values (null)").run());
    expect((constraint as { code?: string }).code).toMatch(/^SQLITE_CONSTRAINT/);
    expect(storageFaultOf(constraint)).toBeUndefined();
    expect(storageFaultOf(new Error("no code"))).toBeUndefined();
    expect(storageFaultOf("SQLITE_BUSY")).toBeUndefined();
  });

  it("opening a file that is not a database is a storage fault too", () => {
    const file = path.join(tempDir(), "not-a-db.sqlite");
    fs.writeFileSync(file, "this is not SQLite".repeat(100));
    const db = new Database(file);
    try {
      expect(storageFaultOf(thrownBy(() => db.prepare("select * from sqlite_master").all()))?.message).toMatch(/damaged/);
    } finally {
      db.close();
    }
  });
});
