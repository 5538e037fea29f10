// The call record and call history over both dialects: the same behaviour tests run on SQLite
// (CallResults on a temporary file) and on PostgreSQL (PgCallResults on this file's own database),
// then exactly-once on PostgreSQL with real concurrency: two connection pools stand for two console
// instances sharing one database.
//
// What PostgreSQL guarantees across instances: the record keeps exactly one result per call key
// (the first committed put), every reader after that sees it, and a call retried on any instance
// after one instance recorded it is answered from the record without running. What it does not
// promise: the executor records a call once it has run, so the same call sent to two instances at
// the same moment may run on both (at most once on each, since an instance joins a repeat to its
// running call); both callers then hear the one result the record kept.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db";
import { CallResults, type CallResultStore } from "@/lib/db/call-results";
import { PgCallResults } from "@/lib/db/postgres/call-results";
import { openPostgres, type PostgresHandle } from "@/lib/db/postgres/open";
import { Executor, type CallEvent, type CallOutcome, type ToolResult } from "@/lib/execution";
import { ToolRegistry } from "@/lib/tools";
import { freshDatabase } from "../support/database";
import { postgresDatabase, postgresPool } from "../support/postgres";

const database = postgresDatabase();
const pg = postgresPool(database);

// The tool registry lives in SQLite on either dialect: each test has its own, closed after it.
const registries: DatabaseHandle[] = [];
afterEach(() => {
  for (const handle of registries.splice(0)) handle.close();
});
function newRegistry(): ToolRegistry {
  const handle = freshDatabase();
  registries.push(handle);
  return new ToolRegistry(handle.db);
}

/** One dialect: a store on a fresh database, and another store on the same database (a second instance). */
interface Dialect {
  fresh(): Promise<CallResultStore>;
  another(): CallResultStore;
}

const sqlite = (): Dialect => {
  let handle: DatabaseHandle | undefined;
  return {
    fresh: async () => {
      handle?.close();
      handle = freshDatabase();
      return new CallResults(handle.db);
    },
    another: () => new CallResults(handle!.db),
  };
};

const postgres = (): Dialect => ({
  fresh: async () => {
    await pg.pool.query("truncate call_results");
    return new PgCallResults(pg.db);
  },
  another: () => new PgCallResults(pg.db),
});

const key = (overrides: Partial<{ principal: string; scope: string; callId: string; tool: string; argsDigest: string }> = {}) => ({
  principal: "alice",
  scope: "thread-1",
  callId: "c1",
  tool: "create_ticket",
  argsDigest: "d1",
  ...overrides,
});
const ok = (value: unknown): ToolResult => ({ ok: true, value });
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ctx = { principal: "alice", scope: "thread-1", runId: "run-1", threadId: "thread-1", surface: "agui" as const };

describe.each([
  ["SQLite", sqlite],
  ["PostgreSQL", postgres],
])("the call record on %s", (_name, makeDialect) => {
  let dialect: Dialect;
  let store: CallResultStore;
  beforeEach(async () => {
    dialect = makeDialect();
    store = await dialect.fresh();
  });

  it("answers nothing for a call never recorded, then keeps the first result: later puts report they lost", async () => {
    expect(await store.get(key())).toBeUndefined();
    expect(await store.put(key(), ok({ id: "first" }), 3, { title: "a" })).toBe(true);
    expect(await store.put(key(), ok({ id: "second" }), 4, { title: "a" })).toBe(false);
    expect(await dialect.another().put(key(), ok({ id: "third" }), 5)).toBe(false);
    expect(await store.get(key())).toEqual(ok({ id: "first" }));
    expect(await dialect.another().get(key())).toEqual(ok({ id: "first" }));
  });

  it("keeps calls apart when any part of their key differs", async () => {
    const parts = ["principal", "scope", "callId", "tool", "argsDigest"] as const;
    expect(await store.put(key(), ok("base"), 1)).toBe(true);
    for (const part of parts) expect(await store.put(key({ [part]: `other-${part}` }), ok(part), 1)).toBe(true);
    expect(await store.get(key())).toEqual(ok("base"));
    for (const part of parts) expect(await store.get(key({ [part]: `other-${part}` }))).toEqual(ok(part));
  });

  it("gives back results and arguments as they were recorded: nested values, failures, no arguments", async () => {
    const nested = ok({ list: [1, "two", { three: [true, null] }], text: 'é ✓ "quoted"', n: 1.5 });
    const failed: ToolResult = { ok: false, error: { kind: "tool_error", message: "no such order", details: { code: 404 } } };
    await store.put(key({ callId: "nested" }), nested, 2, { items: [1, 2], deep: { a: { b: "c" } } });
    await store.put(key({ callId: "failed" }), failed, 2);
    expect(await store.get(key({ callId: "nested" }))).toEqual(nested);
    expect(await store.get(key({ callId: "failed" }))).toEqual(failed);
    const calls = await store.recent("create_ticket");
    expect(calls.find((c) => c.callId === "nested")).toMatchObject({
      args: { items: [1, 2], deep: { a: { b: "c" } } },
      result: nested,
      durationMs: 2,
      pinned: false,
    });
    expect(calls.find((c) => c.callId === "failed")?.args).toBeNull();
  });

  it("lists a tool's calls pinned first, then newest first, by principal, a page at a time", async () => {
    const before = Date.now();
    for (const [callId, principal] of [
      ["c1", "alice"],
      ["c2", "bob"],
      ["c3", "alice"],
      ["c4", "alice"],
    ] as const) {
      await store.put(key({ callId, principal }), ok(callId), 7, { callId });
      await tick(3); // a millisecond of its own each
    }
    await store.put(key({ callId: "elsewhere", tool: "other_tool" }), ok("x"), 1);
    expect((await store.recent("create_ticket")).map((c) => c.callId)).toEqual(["c4", "c3", "c2", "c1"]);
    expect(await store.setPinned("create_ticket", "c1", true)).toBe(1);
    expect((await store.recent("create_ticket")).map((c) => c.callId)).toEqual(["c1", "c4", "c3", "c2"]);
    expect((await store.recent("create_ticket", { principal: "bob" })).map((c) => c.callId)).toEqual(["c2"]);
    expect((await store.recent("create_ticket", { limit: 2 })).map((c) => c.callId)).toEqual(["c1", "c4"]);
    const [first] = await store.recent("create_ticket", { principal: "alice", limit: 1 });
    expect(first).toMatchObject({ callId: "c1", principal: "alice", scope: "thread-1", pinned: true, durationMs: 7 });
    expect(first!.createdAt).toBeGreaterThanOrEqual(before);
    expect(first!.createdAt).toBeLessThanOrEqual(Date.now());
    expect(await store.recent("no_such_tool")).toEqual([]);
  });

  it("pins and unpins only the caller's own calls when a principal is given, and reports 0 for no such call", async () => {
    await store.put(key({ principal: "alice" }), ok("a"), 1);
    await store.put(key({ principal: "bob" }), ok("b"), 1);
    expect(await store.setPinned("create_ticket", "c1", true, "bob")).toBe(1);
    expect((await store.recent("create_ticket")).map((c) => [c.principal, c.pinned])).toEqual(
      expect.arrayContaining([
        ["bob", true],
        ["alice", false],
      ]),
    );
    expect(await store.setPinned("create_ticket", "c1", true)).toBe(2);
    expect(await store.setPinned("create_ticket", "c1", false, "alice")).toBe(1);
    expect(await store.setPinned("create_ticket", "nope", true)).toBe(0);
    expect(await store.setPinned("other_tool", "c1", true)).toBe(0);
    expect(await store.setPinned("create_ticket", "c1", true, "carol")).toBe(0);
  });

  it("two executors on one database: a retry on the second is answered from the first's record without running", async () => {
    const registry = newRegistry();
    const runs: string[] = [];
    await registry.add(
      { name: "open_ticket", description: "test", inputSchema: { type: "object" }, policy: { effects: "write" } },
      (_args, info) => {
        runs.push(info.callId);
        return { ticket: runs.length };
      },
    );
    const first = new Executor({ registry, record: store });
    const second = new Executor({ registry, record: dialect.another() });
    const answer = await first.call("open_ticket", { title: "x" }, { callId: "t1", ctx });
    expect(await second.call("open_ticket", { title: "x" }, { callId: "t1", ctx })).toEqual(answer);
    expect(runs).toEqual(["t1"]);
  });

  it("two executors running one call at the same moment both answer with the result the record kept", async () => {
    const registry = newRegistry();
    let entered = 0;
    let bothIn!: () => void;
    const together = new Promise<void>((resolve) => (bothIn = resolve));
    await registry.add(
      { name: "open_ticket", description: "test", inputSchema: { type: "object" }, policy: { effects: "write" } },
      async () => {
        const mine = ++entered;
        if (entered === 2) bothIn();
        await together; // both instances are running the call now
        await tick(mine === 1 ? 0 : 20); // the first to enter records first
        return { ticket: mine };
      },
    );
    const events: CallEvent[] = [];
    const first = new Executor({ registry, record: store, onCall: (e) => events.push(e) });
    const second = new Executor({ registry, record: dialect.another(), onCall: (e) => events.push(e) });
    const answers = await Promise.all([
      first.call("open_ticket", {}, { callId: "t1", ctx }),
      second.call("open_ticket", {}, { callId: "t1", ctx }),
    ]);
    expect(entered).toBe(2);
    expect(answers).toEqual([ok({ ticket: 1 }), ok({ ticket: 1 })]);
    expect((await store.recent("open_ticket")).map((c) => c.result)).toEqual([ok({ ticket: 1 })]);
    // The instance whose result lost says its answer came from the record.
    expect(events.map((e) => e.replayed).sort()).toEqual([false, true]);
  });
});

describe("exactly once on PostgreSQL, across two instances", () => {
  let instanceA: PostgresHandle;
  let instanceB: PostgresHandle;
  let stores: [PgCallResults, PgCallResults];
  beforeAll(async () => {
    // Two pools of 25 connections: each instance can have all of its 25 attempts in flight at once.
    instanceA = await openPostgres(database.url, { maxConnections: 25, onConnectionError: () => {} });
    instanceB = await openPostgres(database.url, { maxConnections: 25, onConnectionError: () => {} });
    stores = [new PgCallResults(instanceA.db), new PgCallResults(instanceB.db)];
  });
  afterAll(async () => {
    await Promise.all([instanceA?.close(), instanceB?.close()]);
  });
  beforeEach(async () => {
    await pg.pool.query("truncate call_results");
  });

  it("50 concurrent puts of one call key: one winner, and all 50 readers then see the winner's result (10 rounds)", async () => {
    for (let round = 0; round < 10; round++) {
      const callKey = key({ callId: `round-${round}` });
      const kept = await Promise.all(Array.from({ length: 50 }, (_, i) => stores[i % 2]!.put(callKey, ok({ writer: i }), 1, { i })));
      const winners = kept.flatMap((won, i) => (won ? [i] : []));
      expect(winners).toHaveLength(1);
      const read = await Promise.all(Array.from({ length: 50 }, (_, i) => stores[i % 2]!.get(callKey)));
      expect(new Set(read.map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify(ok({ writer: winners[0] }))]));
    }
    const { rows } = await pg.pool.query<{ n: number }>("select count(*)::int as n from call_results");
    expect(rows[0]!.n).toBe(10);
  });

  it("50 concurrent calls of one keyed call over two executors: the tool runs at most once per instance, every caller hears one result, and a later retry on either runs nothing", async () => {
    const registry = newRegistry();
    let runs = 0;
    await registry.add(
      { name: "charge_card", description: "test", inputSchema: { type: "object" }, policy: { effects: "write" } },
      async () => {
        const mine = ++runs;
        await tick(10);
        return { charge: mine };
      },
    );
    const executors = [new Executor({ registry, record: stores[0] }), new Executor({ registry, record: stores[1] })];
    const answers: CallOutcome[] = await Promise.all(
      Array.from({ length: 50 }, (_, i) => executors[i % 2]!.call("charge_card", { amount: 5 }, { callId: "pay-1", ctx })),
    );
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(2);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    const retries = await Promise.all(
      Array.from({ length: 10 }, (_, i) => executors[i % 2]!.call("charge_card", { amount: 5 }, { callId: "pay-1", ctx })),
    );
    expect(retries).toEqual(Array.from({ length: 10 }, () => answers[0]));
    expect(runs).toBeLessThanOrEqual(2);
  });
});
