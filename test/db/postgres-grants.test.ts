// "Approve for this thread" grants over both dialects: the same behaviour on SQLite (SqliteGrants
// on a temporary file) and on PostgreSQL (PgGrants), then, on PostgreSQL, two connection pools
// standing for two console instances granting the same tool in the same thread at once.
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "@/lib/db";
import { SqliteGrants, type GrantInput, type GrantStore } from "@/lib/db/grants";
import { PgGrants } from "@/lib/db/postgres/grants";
import { openPostgres } from "@/lib/db/postgres/open";
import { toolEvents } from "@/lib/db/schema.pg";
import { freshDatabase } from "../support/database";
import { postgresDatabase, postgresPool } from "../support/postgres";

const database = postgresDatabase();
const pg = postgresPool(database);

let sqliteHandle: DatabaseHandle | undefined;
afterAll(() => sqliteHandle?.close());

const dialects: Array<[string, () => Promise<GrantStore>]> = [
  [
    "SQLite",
    async () => {
      sqliteHandle?.close();
      sqliteHandle = freshDatabase();
      return new SqliteGrants(sqliteHandle.db);
    },
  ],
  [
    "PostgreSQL",
    async () => {
      await pg.pool.query("truncate approval_grants, tool_events");
      return new PgGrants(pg.db);
    },
  ],
];

const input = (overrides: Partial<GrantInput> = {}): GrantInput => ({
  tool: "refund",
  threadId: "thread-1",
  toolDigest: "digest-1",
  grantedBy: "operator",
  approvalId: "apr_1",
  ...overrides,
});

describe.each(dialects)("grants on %s", (_name, fresh) => {
  let grants: GrantStore;
  beforeEach(async () => {
    grants = await fresh();
  });

  it("grants once per tool, thread and definition: a second grant returns the first", async () => {
    const first = await grants.grant(input());
    const again = await grants.grant(input({ approvalId: "apr_2" }));
    expect(again.id).toBe(first.id);
    expect((await grants.activeFor("refund", "thread-1", "digest-1"))?.id).toBe(first.id);
    expect(await grants.activeFor("refund", "thread-2", "digest-1")).toBeUndefined();
    expect(await grants.activeFor("refund", "thread-1", "digest-2")).toBeUndefined();
    expect(await grants.forTool("refund")).toHaveLength(1);
  });

  it("revokes a grant once, and a changed definition revokes the grants made for the old one", async () => {
    const first = await grants.grant(input());
    expect(await grants.revoke(first.id, "operator", "no longer")).toBe(true);
    expect(await grants.revoke(first.id, "operator")).toBe(false);
    expect(await grants.activeFor("refund", "thread-1", "digest-1")).toBeUndefined();

    await grants.grant(input({ threadId: "thread-a" }));
    await grants.grant(input({ threadId: "thread-b" }));
    await grants.grant(input({ tool: "other", threadId: "thread-a" }));
    // The same definition revokes nothing; another (or a removed tool) revokes the tool's grants only.
    expect(await grants.revokeStale([{ name: "refund", digest: "digest-1" }])).toBe(0);
    expect(
      await grants.revokeStale([
        { name: "refund", digest: "digest-2" },
        { name: "unknown", digest: undefined },
      ]),
    ).toBe(2);
    expect(await grants.activeFor("other", "thread-a", "digest-1")).toBeDefined();
    expect(await grants.revokeStale([{ name: "other", digest: undefined }])).toBe(1);
    const rows = await grants.forTool("refund");
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.revokedAt !== null)).toBe(true);
  });
});

describe("grants on PostgreSQL across two instances", () => {
  it("two instances granting the same tool in the same thread at once make one grant and one audit row", async () => {
    await pg.pool.query("truncate approval_grants, tool_events");
    const other = await openPostgres(database.url, { maxConnections: 4, onConnectionError: () => {} });
    try {
      const a = new PgGrants(pg.db);
      const b = new PgGrants(other.db);
      const made = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).grant(input({ approvalId: `apr_${i}` }))));
      expect(new Set(made.map((grant) => grant.id)).size).toBe(1);
      expect(await a.forTool("refund")).toHaveLength(1);
      const audit = await pg.db.select().from(toolEvents).where(eq(toolEvents.type, "grant_added"));
      expect(audit).toHaveLength(1);
      // Revoked by both at once: once.
      const revoked = await Promise.all([a.revoke(made[0]!.id, "x"), b.revoke(made[0]!.id, "y")]);
      expect(revoked.filter(Boolean)).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});
