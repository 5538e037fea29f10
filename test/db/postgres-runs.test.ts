// The run store over both dialects: the same behaviour tests run on SQLite (SqliteRunStore on a
// temporary file) and on PostgreSQL (PgRunStore on this file's own database), then what only
// PostgreSQL faces: two connection pools stand for two console instances sharing one database.
import type { AGUIEvent } from "@ag-ui/core";
import { beforeEach, describe, expect, it } from "vitest";
import { InvalidCursor } from "@/lib/db";
import { PgRunStore } from "@/lib/db/postgres/runs";
import { RunIdTaken, SqliteRunStore, type RunStore } from "@/lib/db/runs";
import { freshDatabase } from "../support/database";
import { postgresDatabase, postgresPool } from "../support/postgres";

const database = postgresDatabase();
const pg = postgresPool(database);

/** One dialect's store, with what the shared tests need to read of its storage directly. */
interface Dialect {
  store(onWriteError?: (error: unknown, runIds: string[]) => void): RunStore;
  /** The run's event rows as stored, past the store's queue: first position and count of each. */
  rows(runId: string): Promise<Array<{ seq: number; count: number }>>;
  /** Overwrite the row from `seq` with text that is no record at all. */
  spoil(runId: string, seq: number): Promise<void>;
}

const sqlite = (): Dialect => {
  const handle = freshDatabase();
  return {
    store: (onWriteError) => new SqliteRunStore(handle.db, onWriteError),
    rows: async (runId) =>
      handle.sqlite.prepare("select seq, count from run_events where run_id = ? order by seq").all(runId) as Array<{
        seq: number;
        count: number;
      }>,
    spoil: async (runId, seq) => {
      handle.sqlite.prepare("update run_events set events = 'not a record' where run_id = ? and seq = ?").run(runId, seq);
    },
  };
};

const postgres = (): Dialect => ({
  store: (onWriteError) => new PgRunStore(pg.db, onWriteError),
  rows: async (runId) =>
    (await pg.pool.query<{ seq: number; count: number }>("select seq, count from run_events where run_id = $1 order by seq", [runId])).rows,
  spoil: async (runId, seq) => {
    await pg.pool.query("update run_events set events = 'not a record' where run_id = $1 and seq = $2", [runId, seq]);
  },
});

const event = (i: number) =>
  ({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: `word ${i} `, timestamp: 1_800_000_000_000 + i }) as AGUIEvent;
const many = (from: number, n: number) => Array.from({ length: n }, (_, i) => event(from + i));
const started = (runId: string, threadId = "t1", extra: { title?: string; principal?: string } = {}) => ({
  runId,
  threadId,
  agent: "demo",
  principal: extra.principal ?? "alice",
  title: extra.title,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  ["SQLite", sqlite],
  ["PostgreSQL", postgres],
])("the run store on %s", (_name, dialect) => {
  let storage: Dialect;
  let store: RunStore;
  let failures: string[][];
  beforeEach(async () => {
    if (dialect === postgres) await pg.pool.query("truncate threads, runs, run_events cascade");
    storage = dialect();
    failures = [];
    store = storage.store((_error, runIds) => failures.push(runIds));
  });

  it("records a start with its thread, and refuses a reused run id without touching anything", async () => {
    await store.start(started("r1", "t1", { title: "First words" }));
    expect(await store.threadOwner("t1")).toBe("alice");
    expect(await store.threadOwner("t-none")).toBeUndefined();
    expect(await store.getThread("t1")).toMatchObject({ title: "First words", messages: [], state: null, principal: "alice" });
    const run = await store.getRun("r1");
    expect(run).toMatchObject({ status: "running", agent: "demo", surface: "agui", parentRunId: null, finishedAt: null });
    // Milliseconds come back as numbers on both dialects (int8 is a string through raw pg).
    expect(typeof run!.startedAt).toBe("number");
    expect(run!.startedAt).toBeGreaterThan(1_700_000_000_000);

    await expect(store.start(started("r1", "t-other"))).rejects.toBeInstanceOf(RunIdTaken);
    expect(await store.getThread("t-other")).toBeUndefined();
    // A later run keeps the thread's first title.
    await store.start(started("r2", "t1", { title: "Other words" }));
    expect((await store.getThread("t1"))?.title).toBe("First words");
  });

  it("keeps the state a run was given, and none for an empty one", async () => {
    const given = { actions: [{ tool: "refund", args: { order: 42 } }], note: "ünïcode" };
    await store.start({ ...started("r1"), inputState: given });
    await store.start({ ...started("r2"), inputState: {} });
    await store.start(started("r3"));
    await store.start({ ...started("r4"), inputState: [1, 2] });
    expect((await store.getRun("r1"))?.inputState).toEqual(given);
    expect((await store.getRun("r2"))?.inputState).toBeNull();
    expect((await store.getRun("r3"))?.inputState).toBeNull();
    expect((await store.getRun("r4"))?.inputState).toEqual([1, 2]);
  });

  it("keeps a run's events in order, its consecutive batches as one row, written before any read", async () => {
    await store.start(started("r1"));
    store.append("r1", 0, many(0, 3));
    store.append("r1", 3, many(3, 500));
    expect(await storage.rows("r1")).toEqual([]);
    const events = await store.events("r1");
    expect(await storage.rows("r1")).toEqual([{ seq: 0, count: 503 }]);
    expect(events).toEqual(many(0, 503));

    store.append("r1", 503, [event(503)]);
    expect((await store.events("r1", 500)).map((e) => e.timestamp! - 1_800_000_000_000)).toEqual([501, 502, 503]);
    // A batch that does not follow on starts a row of its own.
    store.append("r1", 600, [event(600)]);
    await store.flush();
    expect(await storage.rows("r1")).toEqual([
      { seq: 0, count: 503 },
      { seq: 503, count: 1 },
      { seq: 600, count: 1 },
    ]);
  });

  it("reads only the rows holding events after the position asked for", async () => {
    // Five rows of ten events: a client following a run asks again and again for what follows.
    await store.start(started("r-tail"));
    for (let row = 0; row < 5; row++) {
      store.append("r-tail", row * 10, many(row * 10, 10));
      await store.flush();
    }
    expect((await storage.rows("r-tail")).map((r) => r.seq)).toEqual([0, 10, 20, 30, 40]);
    for (let after = -1; after <= 50; after++)
      expect(await store.events("r-tail", after)).toEqual(many(after + 1, Math.max(0, 49 - after)));
    // The rows before the one holding the next event are not read at all: a broken first row
    // fails a read from the start, not one from position 9 on.
    await storage.spoil("r-tail", 0);
    await expect(store.events("r-tail")).rejects.toThrow();
    await expect(store.events("r-tail", 8)).rejects.toThrow();
    expect(await store.events("r-tail", 9)).toEqual(many(10, 40));
    expect(await store.events("r-tail", 47)).toEqual(many(48, 2));
  });

  it("writes waiting events by itself a moment later, and a long record (past deflate's threshold) comes back whole", async () => {
    await store.start(started("r-long"));
    const long = Array.from({ length: 3000 }, (_, i) => ({ ...event(i), delta: `${i.toString(36)} ` }) as AGUIEvent);
    store.append("r-long", 0, long);
    for (let i = 0; i < 100 && !(await storage.rows("r-long")).length; i++) await sleep(20);
    expect(await storage.rows("r-long")).toEqual([{ seq: 0, count: 3000 }]);
    expect(await store.events("r-long")).toEqual(long);
  });

  it("records the end with the run's last events in the same write, and the thread's messages and state", async () => {
    await store.start(started("r1", "t1", { title: "hi" }));
    store.append("r1", 0, many(0, 2));
    const messages = [{ id: "u", role: "user" as const, content: "hi" }];
    await store.finish("r1", {
      status: "interrupted",
      outcome: { type: "interrupt" },
      messages,
      // The stream's own encoding of the same messages is stored as it is.
      messagesJson: JSON.stringify(messages),
      state: { done: [] },
      toolCallCount: 2,
      usage: [{ tokens: 5 }],
    });
    expect(await storage.rows("r1")).toEqual([{ seq: 0, count: 2 }]);
    expect(await store.getRun("r1")).toMatchObject({
      status: "interrupted",
      outcome: { type: "interrupt" },
      toolCallCount: 2,
      usage: [{ tokens: 5 }],
      error: null,
      finishedAt: expect.any(Number),
    });
    expect(await store.getThread("t1")).toMatchObject({ messages, state: { done: [] } });

    // A later run that reports neither keeps them.
    await store.start(started("r2", "t1"));
    await store.finish("r2", { status: "error", error: "boom" });
    expect(await store.getThread("t1")).toMatchObject({ title: "hi", messages, state: { done: [] } });
    expect(await store.getRun("r2")).toMatchObject({ status: "error", error: "boom", outcome: null, usage: null, toolCallCount: 0 });
    expect(failures).toEqual([]);
  });

  it("a run whose end cannot be serialised is still recorded as ended (error), with its events, the thread unchanged", async () => {
    await store.start(started("r1"));
    await store.finish("r1", { status: "finished", state: { kept: true } });
    await store.start(started("r2"));
    store.append("r2", 0, many(0, 4));
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) deep = { deep };
    await store.finish("r2", { status: "finished", state: deep, toolCallCount: 1 });
    expect(failures).toEqual([["r2"]]);
    expect(await store.getRun("r2")).toMatchObject({
      status: "error",
      error: expect.stringMatching(/could not be stored/),
      toolCallCount: 1,
    });
    expect(await store.events("r2")).toEqual(many(0, 4));
    expect((await store.getThread("t1"))?.state).toEqual({ kept: true });
  });

  it("drops and reports a row the database refuses, and stores the other runs' rows of the same write", async () => {
    await store.start(started("r-ok"));
    // No such run: the foreign key refuses the row.
    store.append("r-missing", 0, [event(0)]);
    store.append("r-ok", 0, many(0, 5));
    await expect(store.flush()).resolves.toBeUndefined();
    expect(failures).toEqual([["r-missing"]]);
    expect(await store.events("r-missing")).toEqual([]);
    expect(await store.events("r-ok")).toEqual(many(0, 5));
  });

  it("lists runs newest first, filtered, a page at a time; and threads by latest activity", async () => {
    for (let i = 0; i < 5; i++) {
      await store.start(started(`r${i}`, i % 2 ? "t-odd" : "t-even", { principal: i < 4 ? "alice" : "bob" }));
      await sleep(2);
    }
    const first = await store.listRuns({ limit: 2 });
    expect(first.items.map((r) => r.id)).toEqual(["r4", "r3"]);
    const second = await store.listRuns({ limit: 2, cursor: first.nextCursor });
    expect(second.items.map((r) => r.id)).toEqual(["r2", "r1"]);
    const last = await store.listRuns({ limit: 2, cursor: second.nextCursor });
    expect(last).toEqual({ items: [expect.objectContaining({ id: "r0" })] });
    expect((await store.listRuns({ threadId: "t-odd" })).items.map((r) => r.id)).toEqual(["r3", "r1"]);
    expect((await store.listRuns({ principal: "bob" })).items.map((r) => r.id)).toEqual(["r4"]);
    // Without the state each run was given (getRun has it), as on SQLite.
    expect((await store.listRuns({ principal: "bob" })).items[0]).not.toHaveProperty("inputState");
    await store.finish("r0", { status: "finished" });
    expect((await store.listRuns({ status: "finished" })).items.map((r) => r.id)).toEqual(["r0"]);
    await expect(store.listRuns({ cursor: "not a cursor" })).rejects.toBeInstanceOf(InvalidCursor);

    expect((await store.listThreads()).map((t) => t.id)).toEqual(["t-even", "t-odd"]);
    expect((await store.listThreads({ principal: "alice", limit: 1 })).map((t) => t.id)).toEqual(["t-even"]);
    // Without the conversation and state (getThread has them), as on SQLite.
    expect(Object.keys((await store.listThreads())[0]!).sort()).toEqual(["agent", "createdAt", "id", "principal", "title", "updatedAt"]);
  });
});

describe("two instances on one PostgreSQL", () => {
  const other = postgresPool(database, { maxConnections: 10 });
  beforeEach(async () => {
    await pg.pool.query("truncate threads, runs, run_events cascade");
  });

  it("a run id started on both at once is taken once: one start wins, every other is refused and changes nothing", async () => {
    const a = new PgRunStore(pg.db);
    const b = new PgRunStore(other.db);
    const attempts = Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? a : b).start({ runId: "r-same", threadId: `t-${i}`, agent: "demo", principal: "alice" }),
    );
    const results = await Promise.allSettled(attempts);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(RunIdTaken);
    const { rows } = await pg.pool.query<{ n: number }>("select count(*)::int as n from threads");
    expect(rows[0]!.n).toBe(1);
  });

  it("many runs starting at once on one new thread create it once; one instance's recorded run reads the same from the other", async () => {
    const a = new PgRunStore(pg.db);
    const b = new PgRunStore(other.db);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? a : b).start({ runId: `r-${i}`, threadId: "t-shared", agent: "demo", principal: "alice", title: `words ${i}` }),
      ),
    );
    expect((await b.listRuns({ threadId: "t-shared", limit: 100 })).items).toHaveLength(30);
    expect((await a.getThread("t-shared"))?.title).toMatch(/^words \d+$/);

    a.append("r-0", 0, many(0, 10));
    await a.finish("r-0", { status: "finished", messages: [{ id: "u", role: "user", content: "hi" }] });
    expect(await b.events("r-0")).toEqual(many(0, 10));
    expect(await b.getRun("r-0")).toMatchObject({ status: "finished" });
    // Stored as JSON text, not bytes.
    const { rows } = await pg.pool.query<{ kind: string }>("select pg_typeof(events)::text as kind from run_events where run_id = 'r-0'");
    expect(rows).toEqual([{ kind: "text" }]);
  });
});

describe("the statements every run sends", () => {
  // One connection, so that the statements the store prepares are the ones this test reads.
  const single = postgresPool(database, { maxConnections: 1 });
  beforeEach(async () => {
    await pg.pool.query("truncate threads, runs, run_events cascade");
  });

  it("are prepared once on a connection and reused by every later run (PostgreSQL parses and plans them once)", async () => {
    const store = new PgRunStore(single.db);
    const prepared = async () =>
      (await single.pool.query<{ statement: string }>("select statement from pg_prepared_statements order by statement")).rows.map((row) =>
        row.statement.replace(/\s+/g, " ").slice(0, 24),
      );
    const oneRun = async (runId: string) => {
      await store.threadOwner("t1");
      await store.start(started(runId));
      store.append(runId, 0, many(0, 3));
      await store.finish(runId, { status: "finished", messages: [] });
    };
    await oneRun("r-1");
    const afterOne = await prepared();
    expect(afterOne).toEqual(expect.arrayContaining(["select principal from th", "with run as ( insert int", "with written as (insert "]));
    await oneRun("r-2");
    await oneRun("r-3");
    expect(await prepared()).toEqual(afterOne);
    expect((await store.listRuns({ threadId: "t1" })).items.map((run) => run.status)).toEqual(["finished", "finished", "finished"]);
  });
});
