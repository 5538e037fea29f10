import fs from "node:fs";
import path from "node:path";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { openDatabase, schema } from "@/lib/db";
import { CallResults } from "@/lib/db/call-results";
import { tempDir } from "./support/services";

const expectedTables = Object.values(schema)
  .filter((value): value is typeof value & SQLiteTable => is(value, SQLiteTable))
  .map((table) => getTableName(table))
  .sort();

function tablesIn(sqlite: ReturnType<typeof openDatabase>["sqlite"]): string[] {
  return (
    sqlite
      .prepare(
        // tools_search (FTS5) and its shadow tables come from a hand-written migration, not schema.ts: test/db/tools-search.test.ts covers them.
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%' and name not like 'tools_search%' order by name",
      )
      .all() as Array<{ name: string }>
  ).map((row) => row.name);
}

describe("migrations on a fresh file", () => {
  it("the schema declares the tables of the design", () => {
    expect(expectedTables).toEqual(
      expect.arrayContaining([
        "tools",
        "sources",
        "threads",
        "runs",
        "run_events",
        "approvals",
        "approval_events",
        "call_results",
        "api_tokens",
      ]),
    );
  });

  it("create every table of lib/db/schema.ts with every column", () => {
    const file = path.join(tempDir(), "nested", "dir", "console.db");
    const handle = openDatabase(file);
    try {
      expect(fs.existsSync(file)).toBe(true);
      expect(tablesIn(handle.sqlite)).toEqual(expectedTables);
      for (const table of Object.values(schema).filter((value): value is typeof value & SQLiteTable => is(value, SQLiteTable))) {
        const name = getTableName(table);
        const declared = Object.values(table as unknown as Record<string, { name?: unknown }>)
          .map((column) => column?.name)
          .filter((n): n is string => typeof n === "string")
          .sort();
        const actual = (handle.sqlite.prepare(`select name from pragma_table_info(?)`).all(name) as Array<{ name: string }>)
          .map((c) => c.name)
          .sort();
        expect(declared.length, name).toBeGreaterThan(3);
        expect(actual, name).toEqual(declared);
      }
    } finally {
      handle.close();
    }
  });

  it("turn on WAL, busy_timeout and foreign keys", () => {
    const handle = openDatabase(path.join(tempDir(), "console.db"), { busyTimeoutMs: 4321 });
    try {
      expect(handle.sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(handle.sqlite.pragma("busy_timeout", { simple: true })).toBe(4321);
      expect(handle.sqlite.pragma("foreign_keys", { simple: true })).toBe(1);
    } finally {
      handle.close();
    }
    const defaults = openDatabase(path.join(tempDir(), "console.db"));
    try {
      // Short on purpose: a lock held by another process must not freeze the console (connection.ts says why).
      expect(defaults.sqlite.pragma("busy_timeout", { simple: true })).toBe(250);
    } finally {
      defaults.close();
    }
  });

  it("foreign keys are enforced", () => {
    const handle = openDatabase(path.join(tempDir(), "console.db"));
    try {
      expect(() =>
        handle.sqlite.prepare("insert into approval_events (approval_id, type, actor) values ('apr_missing', 'requested', 'alice')").run(),
      ).toThrow(/FOREIGN KEY/);
    } finally {
      handle.close();
    }
  });

  it("re-opening applies nothing twice and keeps the data", () => {
    const file = path.join(tempDir(), "console.db");
    const first = openDatabase(file);
    const migrations = first.sqlite.prepare("select hash, created_at from __drizzle_migrations order by id").all();
    const journal = JSON.parse(fs.readFileSync(path.resolve(__dirname, "..", "drizzle", "meta", "_journal.json"), "utf8")) as {
      entries: unknown[];
    };
    expect(migrations).toHaveLength(journal.entries.length);
    first.sqlite.prepare("insert into api_tokens (id, name, hash, scopes) values ('t1', 'ci', 'h1', '[]')").run();
    first.close();

    for (let i = 0; i < 2; i++) {
      const again = openDatabase(file);
      try {
        expect(again.sqlite.prepare("select hash, created_at from __drizzle_migrations order by id").all()).toEqual(migrations);
        expect(tablesIn(again.sqlite)).toEqual(expectedTables);
        expect(again.sqlite.prepare("select name from api_tokens").all()).toEqual([{ name: "ci" }]);
      } finally {
        again.close();
      }
    }
  });

  it("0011 reorders call_results' key (call id before scope) and keeps every record and the history's order", async () => {
    // A database as the migrations before 0011 left it, with records in it.
    const root = path.resolve(__dirname, "..", "drizzle");
    const before = path.join(tempDir(), "drizzle");
    fs.cpSync(root, before, { recursive: true });
    const journalFile = path.join(before, "meta", "_journal.json");
    const journal = JSON.parse(fs.readFileSync(journalFile, "utf8")) as { entries: Array<{ tag: string }> };
    const upTo = journal.entries.findIndex((entry) => entry.tag === "0011_call_results_key_order");
    expect(upTo).toBeGreaterThan(0);
    fs.writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, upTo) }));
    const file = path.join(tempDir(), "console.db");
    const old = openDatabase(file, { migrationsFolder: before });
    const insert = old.sqlite.prepare(
      "insert into call_results (principal, scope, call_id, tool, args_digest, result, created_at) values (?, ?, ?, 'lookup', 'd', ?, ?)",
    );
    // Two records in the same millisecond (the history breaks that tie by insertion order) and one later.
    insert.run("local", "thread:b", "c2", '{"ok":true,"value":2}', 1000);
    insert.run("local", "thread:a", "c1", '{"ok":true,"value":1}', 1000);
    insert.run("local", "mcp", "c3", '{"ok":true,"value":3}', 2000);
    const keyColumns = (handle: ReturnType<typeof openDatabase>) =>
      (
        handle.sqlite
          .prepare(
            "select name from pragma_index_info((select name from sqlite_master where tbl_name = 'call_results' and name like 'sqlite_autoindex%'))",
          )
          .all() as Array<{ name: string }>
      ).map((column) => column.name);
    expect(keyColumns(old)).toEqual(["principal", "scope", "call_id", "tool", "args_digest"]);
    old.close();

    const migrated = openDatabase(file);
    try {
      expect(keyColumns(migrated)).toEqual(["principal", "call_id", "scope", "tool", "args_digest"]);
      const history = await new CallResults(migrated.db).recent("lookup");
      expect(history.map((call) => call.callId)).toEqual(["c3", "c1", "c2"]);
      expect(
        migrated.sqlite
          .prepare(
            "select result from call_results where principal = 'local' and scope = 'thread:a' and call_id = 'c1' and tool = 'lookup' and args_digest = 'd'",
          )
          .get(),
      ).toEqual({ result: '{"ok":true,"value":1}' });
    } finally {
      migrated.close();
    }
  });

  it("every table carries created and updated times", () => {
    const handle = openDatabase(path.join(tempDir(), "console.db"));
    try {
      for (const table of expectedTables) {
        const columns = (handle.sqlite.prepare(`select name from pragma_table_info(?)`).all(table) as Array<{ name: string }>).map(
          (c) => c.name,
        );
        expect(columns, table).toEqual(expect.arrayContaining(["created_at", "updated_at"]));
      }
    } finally {
      handle.close();
    }
  });
});
