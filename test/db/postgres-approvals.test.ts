// The approvals store over its two row implementations: the same behaviour tests run on SQLite
// (ApprovalRows on a temporary file) and on PostgreSQL (PgApprovalRows on this file's own database),
// then the exactly-once guarantees on PostgreSQL with real concurrency: two connection pools stand
// for two console instances sharing one database.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type Approval,
  ApprovalAlreadyDecided,
  ApprovalExpired,
  ApprovalNotFound,
  ApprovalNotUsable,
  type ApprovalRequest,
  ApprovalStore,
} from "@/lib/approvals";
import { jsonDigest } from "@/lib/json/canonical";
import { InvalidCursor } from "@/lib/db";
import { ApprovalRows, type ApprovalRowStore } from "@/lib/db/approvals";
import { CallResults } from "@/lib/db/call-results";
import { PgApprovalRows } from "@/lib/db/postgres/approvals";
import { openPostgres, type PostgresHandle } from "@/lib/db/postgres/open";
import { callResults } from "@/lib/db/schema.pg";
import { freshDatabase } from "../support/database";
import { postgresDatabase, postgresPool } from "../support/postgres";

const database = postgresDatabase();
const pg = postgresPool(database);

/** One dialect's rows, with what the shared tests need to know of its storage. */
interface Dialect {
  rows(): ApprovalRowStore;
  /** Keep a call's recorded result, as the executor's call record does. */
  recordCall(
    key: { principal: string; scope: string; callId: string; tool: string; argsDigest: string },
    result: Record<string, unknown>,
  ): Promise<void>;
  /** Whether the approval's reason and edited arguments are SQL NULL (not JSON 'null'). */
  nullColumns(id: string): Promise<{ reason: boolean; editedArgs: boolean }>;
}

const sqlite = (): Dialect => {
  const handle = freshDatabase();
  return {
    rows: () => new ApprovalRows(handle.db),
    recordCall: async (key, result) => {
      await new CallResults(handle.db).put(key, result as never, 1);
    },
    nullColumns: async (id) => {
      const query = "select reason is null as reason, edited_args is null as editedArgs from approvals where id = ?";
      const row = handle.sqlite.prepare(query).get(id) as { reason: number; editedArgs: number };
      return { reason: row.reason === 1, editedArgs: row.editedArgs === 1 };
    },
  };
};

const postgres = (): Dialect => ({
  rows: () => new PgApprovalRows(pg.db),
  recordCall: async (key, result) => {
    await pg.db.insert(callResults).values({ ...key, result, durationMs: 1 });
  },
  nullColumns: async (id) => {
    const { rows } = await pg.pool.query<{ reason: boolean; editedArgs: boolean }>(
      'select reason is null as reason, edited_args is null as "editedArgs" from approvals where id = $1',
      [id],
    );
    return rows[0]!;
  },
});

const args = { orderId: "1234", amount: 20 };
const binding = (approval: Approval) => ({
  scope: approval.scope,
  callId: approval.callId,
  tool: approval.tool,
  argsDigest: approval.argsDigest,
});

describe.each([
  ["SQLite", sqlite],
  ["PostgreSQL", postgres],
])("the approval store on %s", (_name, dialect) => {
  let clock: number;
  let store: ApprovalStore;
  let storage: Dialect;
  beforeEach(async () => {
    if (dialect === postgres) await pg.pool.query("truncate approvals, approval_events, call_results cascade");
    storage = dialect();
    clock = 1_764_000_000_000;
    store = new ApprovalStore(storage.rows(), { ttlMs: 60_000, now: () => clock });
  });

  const request = (overrides: Partial<ApprovalRequest> = {}) =>
    store.request({
      principal: "alice",
      scope: "thread-1",
      callId: "c1",
      tool: "issue_refund",
      args,
      runId: "run-1",
      threadId: "thread-1",
      surface: "agui",
      ...overrides,
    });

  it("asks once per call: the same call gives the same approval and one 'requested' event", async () => {
    const first = await request({ message: "Refund?" });
    expect(first).toMatchObject({
      status: "pending",
      principal: "alice",
      args,
      message: "Refund?",
      expiresAt: clock + 60_000,
      createdAt: clock,
    });
    clock += 1000;
    expect(await request({ message: "other", runId: "run-2" })).toEqual(first);
    expect((await request({ callId: "c2" })).id).not.toBe(first.id);
    expect(await store.get(first.id)).toEqual(first);
    expect(await store.findFor("alice", binding(first))).toEqual(first);
    expect(await store.findFor("bob", binding(first))).toBeUndefined();
    expect(await store.events(first.id)).toMatchObject([{ type: "requested", actor: "alice", data: { args } }]);
  });

  it("decides once; a second decision is refused with the status that holds; absent values are SQL NULL", async () => {
    const approval = await request();
    clock += 10;
    const decided = await store.decide(approval.id, { approved: true, decidedBy: "bob" });
    expect(decided).toMatchObject({ status: "approved", decidedBy: "bob", decidedAt: clock, reason: null, editedArgs: null });
    expect(await storage.nullColumns(approval.id)).toEqual({ reason: true, editedArgs: true });
    const refused = await store.decide(approval.id, { approved: false, decidedBy: "carol" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApprovalAlreadyDecided);
    expect((refused as ApprovalAlreadyDecided).message).toContain("already approved");
    expect((await store.events(approval.id)).map((e) => [e.type, e.actor])).toEqual([
      ["requested", "alice"],
      ["decided", "bob"],
    ]);
    await expect(store.decide("apr_nope", { approved: true, decidedBy: "bob" })).rejects.toThrow(ApprovalNotFound);
  });

  it("keeps a reason and edited arguments as given", async () => {
    const approval = await request();
    const edited = { orderId: "1234", amount: 5, note: "é ✓" };
    const decided = await store.decide(approval.id, { approved: true, reason: "partial", editedArgs: edited, decidedBy: "bob" });
    expect(decided).toMatchObject({ reason: "partial", editedArgs: edited });
    expect(await store.get(approval.id)).toMatchObject({ reason: "partial", editedArgs: edited });
  });

  it("refuses a decision after the time to decide, and marks the approval expired", async () => {
    const approval = await request();
    clock += 60_000;
    await expect(store.decide(approval.id, { approved: true, decidedBy: "bob" })).rejects.toThrow(ApprovalExpired);
    expect((await store.get(approval.id))?.status).toBe("expired");
    await expect(store.decide(approval.id, { approved: true, decidedBy: "bob" })).rejects.toThrow(ApprovalExpired);
  });

  it("expires every pending approval past its time once, and counts only those still open", async () => {
    const early = await request({ callId: "early", ttlMs: 1_000 });
    const late = await request({ callId: "late" });
    expect(await store.countPending()).toBe(2);
    clock += 1_000;
    expect(await store.countPending()).toBe(1);
    expect((await store.expireDue()).map((a) => a.id)).toEqual([early.id]);
    expect(await store.expireDue()).toEqual([]);
    expect((await store.get(late.id))?.status).toBe("pending");
    expect((await store.events(early.id)).map((e) => [e.type, e.actor])).toEqual([
      ["requested", "alice"],
      ["expired", "system"],
    ]);
  });

  it("consumes an approved approval once, for its own call only, then keeps its outcome", async () => {
    const approval = await request();
    await expect(store.consume(approval.id, binding(approval))).rejects.toThrow(/it is pending/);
    await store.decide(approval.id, { approved: true, decidedBy: "bob" });
    const other = await store.consume(approval.id, { ...binding(approval), callId: "c9" }).catch((error: unknown) => error);
    expect(other).toBeInstanceOf(ApprovalNotUsable);
    expect((other as Error).message).toMatch(/another call/);
    expect(await store.consume(approval.id, binding(approval))).toMatchObject({ status: "consumed", consumedAt: clock });
    await expect(store.consume(approval.id, binding(approval))).rejects.toThrow(/used already/);
    clock += 5;
    await store.recordOutcome(approval.id, { ok: true, value: { refundId: "rf_1" } });
    expect(await store.get(approval.id)).toMatchObject({ result: { ok: true, value: { refundId: "rf_1" } }, ranAt: clock });
    expect((await store.events(approval.id)).map((e) => e.type)).toEqual(["requested", "decided", "consumed", "ran"]);
  });

  it("cancels what nobody used yet, and refuses the rest", async () => {
    const pending = await request({ callId: "p" });
    const approved = await request({ callId: "a" });
    await store.decide(approved.id, { approved: true, decidedBy: "bob" });
    expect(await store.cancel(pending.id, "operator", "not needed")).toMatchObject({ status: "cancelled", reason: "not needed" });
    expect(await store.cancel(approved.id, "operator")).toMatchObject({ status: "cancelled" });
    await expect(store.cancel(approved.id, "operator")).rejects.toThrow(ApprovalAlreadyDecided);
  });

  it("tells listeners of each change after it is written", async () => {
    const heard: string[] = [];
    store.onChange((change) => heard.push(`${change.type}:${change.approval.status}`));
    const approval = await request();
    await request();
    await store.decide(approval.id, { approved: false, decidedBy: "bob" });
    await store.cancel(approval.id, "operator").catch(() => {});
    expect(heard).toEqual(["requested:pending", "decided:denied"]);
  });

  it("marks an outcome delivered to its conversation once, and leaves the thread's others open", async () => {
    const first = await request({ callId: "c1" });
    clock += 1;
    const second = await request({ callId: "c2" });
    await request({ callId: "c3", surface: "mcp" });
    expect((await store.unansweredForThread("thread-1")).map((a) => a.id)).toEqual([first.id, second.id]);
    await store.markAnswered(first.id, "run-2", "alice");
    await store.markAnswered(first.id, "run-3", "alice");
    expect(await store.get(first.id)).toMatchObject({ answeredAt: clock, answeredRunId: "run-2" });
    expect((await store.unansweredForThread("thread-1")).map((a) => a.id)).toEqual([second.id]);
    expect((await store.events(first.id)).filter((e) => e.type === "answered")).toMatchObject([
      { actor: "alice", data: { runId: "run-2" } },
    ]);
  });

  it("finds a call made without a key by caller, scope, tool and arguments: the newest unanswered one, within the time to decide", async () => {
    const call = { scope: "mcp", tool: "issue_refund", argsDigest: jsonDigest(args) };
    const first = await request({ scope: "mcp", callId: "k1" });
    clock += 1;
    const second = await request({ scope: "mcp", callId: "k2" });
    expect((await store.unansweredForCall("alice", call))?.id).toBe(second.id);
    expect(await store.unansweredForCall("bob", call)).toBeUndefined();
    expect(await store.unansweredForCall("alice", { ...call, scope: "thread-1" })).toBeUndefined();
    expect(await store.unansweredForCall("alice", { ...call, argsDigest: jsonDigest({ other: 1 }) })).toBeUndefined();
    await store.markAnswered(second.id, "run-2", "alice");
    expect((await store.unansweredForCall("alice", call))?.id).toBe(first.id);
    // Asked longer ago than the time to decide: a call made now is a new one.
    clock += 60_000;
    expect(await store.unansweredForCall("alice", call)).toBeUndefined();
  });

  it("lists newest first, a page at a time, filtered, with a text search that ignores case and LIKE's characters", async () => {
    const made: Approval[] = [];
    for (let i = 0; i < 7; i++) {
      if (i % 2 === 0) clock += 1; // pairs share a creation time: the cursor breaks ties by id
      made.push(
        await request({ callId: `c${i}`, principal: i === 3 ? "user_50%" : "alice", tool: i % 3 === 0 ? "create_ticket" : "issue_refund" }),
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ limit: 3, cursor });
      seen.push(...page.items.map((a) => a.id));
      cursor = page.nextCursor;
    } while (cursor);
    const newestFirst = [...made].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((a) => a.id);
    expect(seen).toEqual(newestFirst);
    const ids = async (filter: Parameters<ApprovalStore["list"]>[0]) => (await store.list(filter)).items.map((a) => a.id).sort();
    expect(await ids({ tool: "create_ticket" })).toEqual([made[0]!.id, made[3]!.id, made[6]!.id].sort());
    expect(await ids({ text: "TICKET" })).toEqual(await ids({ tool: "create_ticket" }));
    expect(await ids({ text: "ORDERID 1234" })).toHaveLength(7);
    expect(await ids({ text: "50%" })).toEqual([made[3]!.id]);
    expect(await ids({ text: "user_5" })).toEqual([made[3]!.id]);
    expect(await ids({ text: "_%" })).toEqual([]);
    await store.decide(made[1]!.id, { approved: true, decidedBy: "bob" });
    expect(await ids({ status: ["approved", "denied"] })).toEqual([made[1]!.id]);
    await expect(store.list({ cursor: "garbage" })).rejects.toThrow(InvalidCursor);
  });

  it("at start-up gives a used approval without an outcome the recorded result, or 'outcome unknown', once", async () => {
    const use = async (callId: string) => {
      const approval = await request({ callId });
      await store.decide(approval.id, { approved: true, decidedBy: "bob" });
      return store.consume(approval.id, binding(approval));
    };
    const recorded = await use("recorded");
    const cut = await use("cut");
    const finished = await use("finished");
    await store.recordOutcome(finished.id, { ok: true, value: 1 });
    await storage.recordCall({ principal: "alice", ...binding(recorded) }, { ok: true, value: { refundId: "rf_9" } });
    const settled = await store.settleInterrupted();
    expect(settled.map((a) => a.id).sort()).toEqual([recorded.id, cut.id].sort());
    expect((await store.get(recorded.id))?.result).toEqual({ ok: true, value: { refundId: "rf_9" } });
    expect((await store.get(cut.id))?.result).toMatchObject({ ok: false, error: { kind: "outcome_unknown" } });
    expect((await store.get(finished.id))?.result).toEqual({ ok: true, value: 1 });
    expect(await store.settleInterrupted()).toEqual([]);
  });
});

describe("exactly once on PostgreSQL, across two instances", () => {
  let instanceA: PostgresHandle;
  let instanceB: PostgresHandle;
  let stores: [ApprovalStore, ApprovalStore];
  beforeAll(async () => {
    // Two pools of 25 connections: each instance can have all of its 25 attempts in flight at once.
    instanceA = await openPostgres(database.url, { maxConnections: 25, onConnectionError: () => {} });
    instanceB = await openPostgres(database.url, { maxConnections: 25, onConnectionError: () => {} });
    stores = [new ApprovalStore(new PgApprovalRows(instanceA.db)), new ApprovalStore(new PgApprovalRows(instanceB.db))];
  });
  afterAll(async () => {
    await Promise.all([instanceA?.close(), instanceB?.close()]);
  });
  beforeEach(async () => {
    await pg.pool.query("truncate approvals, approval_events, call_results cascade");
  });

  const ask = (store: ApprovalStore, callId = "c1") =>
    store.request({ principal: "alice", scope: "s", callId, tool: "issue_refund", args, surface: "agui" });
  const eventCount = async (type: string) =>
    (await pg.pool.query<{ n: number }>("select count(*)::int as n from approval_events where type = $1", [type])).rows[0]!.n;
  /** Settle every attempt, and split them into what they returned and what they threw. */
  const race = async <T>(attempts: Array<() => Promise<T>>) => {
    const outcomes = await Promise.allSettled(attempts.map((attempt) => attempt()));
    return {
      won: outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : [])),
      lost: outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : [])),
    };
  };

  it("50 concurrent requests for one call make one approval and one 'requested' event", async () => {
    const { won, lost } = await race(Array.from({ length: 50 }, (_, i) => () => ask(stores[i % 2]!)));
    expect(lost).toEqual([]);
    expect(new Set(won.map((a) => a.id)).size).toBe(1);
    expect(await eventCount("requested")).toBe(1);
  });

  it("50 concurrent decisions on one approval: exactly one wins, one 'decided' event, the others are told it was decided", async () => {
    const approval = await ask(stores[0]);
    const { won, lost } = await race(
      Array.from({ length: 50 }, (_, i) => () => stores[i % 2]!.decide(approval.id, { approved: i % 3 !== 0, decidedBy: `op-${i}` })),
    );
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(49);
    for (const error of lost) expect(error).toBeInstanceOf(ApprovalAlreadyDecided);
    expect(await eventCount("decided")).toBe(1);
    const stored = await stores[1].get(approval.id);
    expect(stored).toMatchObject({ status: won[0]!.status, decidedBy: won[0]!.decidedBy });
  });

  it("50 concurrent consumes of an approved approval: exactly one succeeds, one 'consumed' event", async () => {
    const approval = await ask(stores[0]);
    await stores[1].decide(approval.id, { approved: true, decidedBy: "op" });
    const { won, lost } = await race(Array.from({ length: 50 }, (_, i) => () => stores[i % 2]!.consume(approval.id, binding(approval))));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(49);
    for (const error of lost) expect((error as Error).message).toMatch(/used already/);
    expect(await eventCount("consumed")).toBe(1);
  });

  it("two instances starting at once settle each cut-off call once, with one 'ran' event", async () => {
    const cut: Approval[] = [];
    for (let i = 0; i < 10; i++) {
      const approval = await ask(stores[0], `cut-${i}`);
      await stores[0].decide(approval.id, { approved: true, decidedBy: "op" });
      cut.push(await stores[0].consume(approval.id, binding(approval)));
    }
    const [a, b] = await Promise.all([stores[0].settleInterrupted(), stores[1].settleInterrupted()]);
    expect([...a, ...b].map((approval) => approval.id).sort()).toEqual(cut.map((approval) => approval.id).sort());
    expect(await eventCount("ran")).toBe(10);
  });
});
