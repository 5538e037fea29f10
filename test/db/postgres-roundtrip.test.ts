// A row of every table written through drizzle on PostgreSQL and read back the same: JSON as
// objects (not strings), booleans as booleans, milliseconds past 2^31 as numbers.
import { eq, getTableName, is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres, type PostgresHandle } from "@/lib/db/postgres/open";
import * as pg from "@/lib/db/schema.pg";
import { postgresDatabase } from "../support/postgres";

const database = postgresDatabase();
let handle: PostgresHandle;
beforeAll(async () => {
  handle = await openPostgres(database.url, { maxConnections: 2 });
});
afterAll(async () => {
  await handle?.close();
});

// Times well past what a 4-byte integer holds (2^31 ms is January 1970), one of them past 2038 in seconds too.
const at = 1_764_000_000_123;
const later = 4_102_444_800_456;
const times = { createdAt: at, updatedAt: at + 1 };
const nested = { text: "é ✓ \u{1F600}", list: [1, "two", null, { deep: true }], empty: {}, number: 1.5 };

/** One full row per table, every column given, in an order that satisfies the foreign keys. */
const rows: { [K in keyof typeof pg]?: (typeof pg)[K] extends PgTable ? (typeof pg)[K]["$inferInsert"] : never } = {
  sources: {
    id: "src-1",
    kind: "openapi",
    name: "Petstore",
    location: "https://example.test/openapi.json",
    authRef: { kind: "bearer", header: "authorization" },
    authSecret: "secret",
    options: nested,
    status: "error",
    statusMessage: "down",
    lastRefreshAt: later,
    ...times,
  },
  sourceDocuments: { sourceId: "src-1", document: '{"openapi":"3.1.0"}', ...times },
  tools: {
    name: "pets.list",
    title: "List pets",
    description: "Lists the pets",
    inputSchema: { type: "object", properties: { limit: { type: "integer" } } },
    outputSchema: true,
    confirm: true,
    effects: "destructive",
    idempotent: true,
    openWorld: true,
    timeoutMs: 3_000_000_000,
    retries: 2,
    targets: ["a", "b"],
    tags: [],
    kind: "openapi",
    sourceId: "src-1",
    binding: nested,
    enabled: false,
    approval: "once_per_thread",
    digest: "d1",
    ...times,
  },
  threads: {
    id: "th-1",
    agent: "demo",
    title: "Hello",
    principal: "p1",
    state: { count: 1 },
    messages: [{ role: "user", content: "hi" }],
    ...times,
  },
  runs: {
    id: "run-1",
    threadId: "th-1",
    agent: "demo",
    principal: "p1",
    surface: "mcp",
    status: "interrupted",
    outcome: { type: "interrupt", interrupts: [] },
    error: "none",
    parentRunId: "run-0",
    toolCallCount: 3,
    usage: [{ input: 10, output: 20 }],
    inputState: { actions: [{ tool: "refund" }] },
    startedAt: at,
    finishedAt: later,
    ...times,
  },
  runEvents: { runId: "run-1", seq: 0, count: 2, events: '[{"type":"RUN_STARTED"},{"type":"RUN_FINISHED"}]', ...times },
  approvals: {
    id: "ap-1",
    key: "k1",
    principal: "p1",
    scope: "run-1",
    callId: "call-1",
    runId: "run-1",
    threadId: "th-1",
    surface: "agui",
    tool: "pets.list",
    args: nested,
    argsDigest: "ad",
    message: "may I?",
    status: "consumed",
    decidedBy: "op",
    decidedAt: at,
    reason: "fine",
    editedArgs: { limit: 1 },
    expiresAt: later,
    consumedAt: later,
    result: { ok: true, value: [1] },
    ranAt: later,
    answeredAt: later,
    answeredRunId: "run-2",
    ...times,
  },
  approvalEvents: { id: 41, approvalId: "ap-1", type: "decided", actor: "op", data: { from: "pending" }, ...times },
  callResults: {
    principal: "p1",
    scope: "run-1",
    callId: "call-1",
    tool: "pets.list",
    argsDigest: "ad",
    args: { limit: 1 },
    result: { ok: true, value: nested },
    durationMs: 2_500_000_000,
    pinned: true,
    ...times,
  },
  approvalGrants: {
    id: "gr-1",
    tool: "pets.list",
    threadId: "th-1",
    toolDigest: "d1",
    grantedBy: "op",
    approvalId: "ap-1",
    revokedAt: later,
    revokedBy: "op",
    ...times,
  },
  toolEvents: { id: 7, tool: "pets.list", type: "settings_changed", actor: "op", data: { enabled: false }, ...times },
  apiTokens: {
    id: "tok-1",
    name: "ci",
    hash: "h1",
    scopes: ["agui", "mcp"],
    allowedOrigins: ["https://app.example.test"],
    expiresAt: later,
    agent: "demo",
    lastUsedAt: at,
    revokedAt: later,
    ...times,
  },
  operatorSessions: { idHash: "sess-1", tokenId: "tok-1", principalId: "p1", role: "admin", expiresAt: later, ...times },
  mcpTasks: {
    id: "task-1",
    principal: "p1",
    status: "input_required",
    statusMessage: "waiting",
    tool: "pets.list",
    args: nested,
    scope: "mcp",
    callId: "call-1",
    runId: "run-1",
    approvalId: "ap-1",
    result: { content: [] },
    ttlMs: 2_600_000_000,
    pollIntervalMs: 1000,
    expiresAt: later,
    leaseUntil: later,
    ...times,
  },
  a2aTasks: {
    id: "a2a-1",
    principal: "p1",
    contextId: "ctx",
    state: 6,
    task: { id: "a2a-1", history: [nested] },
    parked: { kind: "tool", calls: [{ tool: "pets.list", args: {}, scope: "s", callId: "c", runId: "r", approvalId: "ap-1" }] },
    approvalId: "ap-1",
    expiresAt: later,
    ...times,
  },
  settings: { key: "assistant", value: ["any", "json", 1, false], updatedBy: "op", ...times },
  agentStates: { agent: "demo", threadId: "th-1", key: "checkpoint", runId: "run-1", status: "paused", value: nested, ...times },
};

const tables = (Object.entries(pg) as Array<[string, unknown]>).filter((entry): entry is [string, PgTable] => is(entry[1], PgTable));
const sample = (key: string) => (rows as Record<string, unknown>)[key];

describe("a row through every PostgreSQL table", () => {
  it("has a sample row for every table of schema.pg.ts", () => {
    expect(Object.keys(rows).sort()).toEqual(tables.map(([key]) => key).sort());
  });

  it("the migrations in drizzle-pg/ build the tables schema.pg.ts declares (generated after every change)", async () => {
    const { rows: columns } = await handle.pool.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      "select table_name, column_name, data_type, is_nullable from information_schema.columns where table_schema = 'public'",
    );
    const { rows: indexes } = await handle.pool.query<{ tablename: string; indexname: string }>(
      "select tablename, indexname from pg_indexes where schemaname = 'public' and indexname not like '%_pkey' and indexname not like '%_pk'",
    );
    const actual = (table: string) => ({
      columns: columns
        .filter((column) => column.table_name === table)
        .map((column) => `${column.column_name} ${column.data_type}${column.is_nullable === "NO" ? " not null" : ""}`)
        .sort(),
      indexes: indexes
        .filter((index) => index.tablename === table)
        .map((index) => index.indexname)
        .sort(),
    });
    for (const [, table] of tables) {
      const config = getTableConfig(table);
      const declared = {
        columns: config.columns.map((column) => `${column.name} ${column.getSQLType()}${column.notNull ? " not null" : ""}`).sort(),
        indexes: [
          ...config.indexes.map((index) => index.config.name!),
          ...config.columns.filter((column) => column.isUnique).map((column) => column.uniqueName!),
          // Hand-written in drizzle-pg/0001_tools_search.sql (an expression index drizzle does not model).
          ...(config.name === "tools" ? ["tools_search_idx"] : []),
        ].sort(),
      };
      expect(actual(config.name), config.name).toEqual(declared);
    }
  });

  it("reads back every column as written: JSON, booleans, milliseconds beyond 32 bits", async () => {
    for (const [key, table] of tables) await handle.db.insert(table).values(sample(key) as never);
    for (const [key, table] of tables) {
      const read = await handle.db.select().from(table);
      expect(read, getTableName(table)).toEqual([sample(key)]);
    }
  });

  it("stores JSON as JSON values and times as bigint numbers, not as strings", async () => {
    const { rows: stored } = await handle.pool.query<{ input: string; output: string; settings: string; expires: string }>(
      `select jsonb_typeof(input_schema) as input, jsonb_typeof(output_schema) as output,
              (select jsonb_typeof(value) from settings) as settings, pg_typeof(updated_at)::text as expires
         from tools`,
    );
    expect(stored).toEqual([{ input: "object", output: "boolean", settings: "array", expires: "bigint" }]);
  });

  it("fills created_at, updated_at and the other defaults with the database clock in milliseconds", async () => {
    const before = Date.now();
    const [row] = await handle.db.insert(pg.threads).values({ id: "th-defaults", agent: "demo", principal: "p1" }).returning();
    const after = Date.now();
    expect(row).toMatchObject({ title: null, state: null, messages: [] });
    // Same machine, so the database clock and ours agree to within the round trip (and a little rounding).
    expect(typeof row!.createdAt).toBe("number");
    expect(row!.createdAt).toBeGreaterThanOrEqual(before - 5);
    expect(row!.createdAt).toBeLessThanOrEqual(after + 5);
    const [event] = await handle.db
      .insert(pg.approvalEvents)
      .values({ approvalId: "ap-1", type: "requested", actor: "p1" })
      .returning({ id: pg.approvalEvents.id });
    // An identity column still takes explicit ids (41 above), and numbers new rows itself.
    expect(event!.id).toEqual(expect.any(Number));
    const [tool] = await handle.db
      .select({ confirm: pg.tools.confirm, enabled: pg.tools.enabled })
      .from(pg.tools)
      .where(eq(pg.tools.name, "pets.list"));
    expect(tool).toEqual({ confirm: true, enabled: false });
  });
});
