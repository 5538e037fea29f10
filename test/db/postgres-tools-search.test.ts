// The PostgreSQL twin of tool search (drizzle-pg/0001_tools_search.sql and pgToolMatches): the
// same words find the same tools as on SQLite (test/db/tools-search.test.ts), no query text is an
// error, and PostgreSQL answers through the GIN index rather than by reading every row.
import { asc, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres, type PostgresHandle } from "@/lib/db/postgres/open";
import * as pg from "@/lib/db/schema.pg";
import { pgToolMatches, toolSearchTerms } from "@/lib/db/tool-search";
import { postgresDatabase } from "../support/postgres";

const database = postgresDatabase();
let handle: PostgresHandle;

const tool = (name: string, title: string, description: string, tags: string[] = []): typeof pg.tools.$inferInsert => ({
  name,
  title,
  description,
  tags,
  inputSchema: { type: "object" },
  timeoutMs: 30_000,
  targets: [],
  kind: "builtin",
  digest: "d",
});

beforeAll(async () => {
  handle = await openPostgres(database.url, { maxConnections: 2 });
  await handle.db
    .insert(pg.tools)
    .values([
      tool("create_comment", "github.issues.create_comment", "Add a comment to an issue", ["github"]),
      tool("getResourceHTTPServer", "getResourceHTTPServer", "Read one resource from the server"),
      tool("list_pets", "List pets", "Lists the pets in the shop", ["petstore"]),
      tool("delete_pet", "delete_pet", 'Delete a pet; NEAR(the end) "quoted" name:value'),
      tool("comment", "comment", "Exactly the word"),
    ]);
}, 60_000);
afterAll(async () => {
  await handle?.close();
});

/** The names the PostgreSQL query finds for `text`, in name order; every tool for no search. */
async function names(text: string): Promise<string[]> {
  const rows = await handle.db
    .select({ name: pg.tools.name })
    .from(pg.tools)
    .where(pgToolMatches(toolSearchTerms(text)))
    .orderBy(asc(pg.tools.name));
  return rows.map((row) => row.name);
}

describe("tool search on PostgreSQL", () => {
  it("finds words by their start anywhere, ignoring case, and every word must match", async () => {
    expect(await names("resource")).toEqual(["getResourceHTTPServer"]);
    expect(await names("SERV")).toEqual(["getResourceHTTPServer"]);
    expect(await names("petst")).toEqual(["list_pets"]);
    expect(await names("pet")).toEqual(["delete_pet", "list_pets"]);
    expect(await names("esource")).toEqual([]);
    expect(await names("comment issue")).toEqual(["create_comment"]);
    expect(await names("comment pets")).toEqual([]);
  });

  it("finds the parts of snake_case, camelCase and dotted names, next to each other", async () => {
    expect(await names("create_comm")).toEqual(["create_comment"]);
    expect(await names("issues.create")).toEqual(["create_comment"]);
    expect(await names("github.issues.create_comment")).toEqual(["create_comment"]);
    expect(await names("getres")).toEqual(["getResourceHTTPServer"]);
    expect(await names("server")).toEqual(["getResourceHTTPServer"]);
    expect(await names("comment_create")).toEqual([]);
  });

  it.each([
    ['"unbalanced', 0],
    ["pet*", 2],
    ["NEAR(", 1],
    ["name:value", 1],
    ["-pet", 2],
    ["pet -list", 1],
    ["(pet", 2],
    ["pet & list | comment", 0],
    ["!pet", 2],
    ["pet:* <-> list", 1],
    ["'; drop table tools; --", 0],
    ["\\pet", 2],
    ["%", 5],
    ["x".repeat(10_000), 0],
  ] as const)("answers query %# with results or none, never an error", async (text, count) => {
    expect(await names(text)).toHaveLength(count);
  });

  it("answers through the GIN index", async () => {
    const client = await handle.pool.connect();
    try {
      await client.query("begin");
      await client.query("set local enable_seqscan = off");
      const query = handle.db
        .select({ name: pg.tools.name })
        .from(pg.tools)
        .where(pgToolMatches(toolSearchTerms("issues.create")))
        .toSQL();
      const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain ${query.sql}`, query.params);
      expect(rows.map((row) => row["QUERY PLAN"]).join("\n")).toContain("tools_search_idx");
      await client.query("rollback");
    } finally {
      client.release();
    }
  });

  it("follows renames and removals at once (an index, not a copy)", async () => {
    await handle.db.execute(sql`update tools set description = 'Lists the animals' where name = 'list_pets'`);
    expect(await names("animals")).toEqual(["list_pets"]);
    await handle.db.execute(sql`delete from tools where name = 'list_pets'`);
    expect(await names("animals")).toEqual([]);
  });
});
