import { afterEach, describe, expect, it } from "vitest";
import {
  type Approval,
  ApprovalAlreadyDecided,
  type ApprovalChange,
  ApprovalDecisionInvalid,
  ApprovalExpired,
  ApprovalGate,
  ApprovalNotFound,
  ApprovalNotUsable,
  type ApprovalRequest,
  ApprovalStore,
  SqliteGrants,
} from "@/lib/approvals";
import { type DatabaseHandle, InvalidCursor } from "@/lib/db";
import { Executor } from "@/lib/execution";
import { jsonDigest } from "@/lib/json/canonical";
import { ToolRegistry, validateAgainst } from "@/lib/tools";
import type { DecideAnswer, DecideRequest } from "./support/decide-worker";
import { countRows, freshDatabase } from "./support/database";
import { startTsWorker } from "./support/ts-worker";
import { approvalIdOf } from "./support/outcomes";
import { CallResults } from "@/lib/db/call-results";

const open: DatabaseHandle[] = [];
afterEach(() => {
  for (const handle of open.splice(0)) handle.close();
});

const refundSchema = {
  type: "object",
  properties: { orderId: { type: "string" }, amount: { type: "number", minimum: 0 } },
  required: ["orderId", "amount"],
  additionalProperties: false,
};

async function setup(ttlMs = 60_000) {
  const handle = freshDatabase();
  open.push(handle);
  const start = 1_700_000_000_000;
  let clock = start;
  const registry = new ToolRegistry(handle.db);
  await registry.add(
    { name: "issue_refund", description: "Refund an order", inputSchema: refundSchema, policy: { confirm: true, effects: "destructive" } },
    () => ({ refundId: "rf_1" }),
  );
  const store = new ApprovalStore(handle.db, {
    ttlMs,
    now: () => clock,
    validateArgs: (name, args) => {
      const tool = registry.get(name);
      return tool ? validateAgainst(tool.inputSchema, args) : "unknown";
    },
  });
  return { handle, registry, store, start, now: () => clock, advance: (ms: number) => (clock += ms) };
}

const args = { orderId: "1234", amount: 20 };

async function request(store: ApprovalStore, overrides: Partial<ApprovalRequest> = {}): Promise<Approval> {
  return await store.request({
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
}

const binding = (approval: Approval) => ({
  scope: approval.scope,
  callId: approval.callId,
  tool: approval.tool,
  argsDigest: approval.argsDigest,
});

async function thrown<T extends Error>(fn: () => Promise<unknown>, type: new (...a: never[]) => T): Promise<T> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error(`expected ${type.name}`);
}

describe("request", () => {
  it("creates a pending approval with its expiry and a 'requested' audit row", async () => {
    const { store, handle, start } = await setup();
    const approval = await request(store, { message: "Refund 20 EUR?" });
    expect(approval).toMatchObject({
      id: expect.stringMatching(/^apr_/),
      status: "pending",
      principal: "alice",
      scope: "thread-1",
      callId: "c1",
      runId: "run-1",
      threadId: "thread-1",
      surface: "agui",
      tool: "issue_refund",
      args,
      argsDigest: jsonDigest(args),
      message: "Refund 20 EUR?",
      expiresAt: start + 60_000,
      createdAt: start,
    });
    expect(await store.get(approval.id)).toEqual(approval);
    expect(await store.events(approval.id)).toMatchObject([{ type: "requested", actor: "alice", data: { args }, createdAt: start }]);
    expect(countRows(handle, "approvals")).toBe(1);
  });

  it("is idempotent for the same principal, scope, call, tool and arguments", async () => {
    const { store, handle, advance } = await setup();
    const first = await request(store);
    advance(1000);
    expect((await request(store, { args: { amount: 20, orderId: "1234" } })).id).toBe(first.id);
    expect(await request(store, { message: "other text", runId: "run-2" })).toEqual(first);
    expect(countRows(handle, "approvals")).toBe(1);
    expect(countRows(handle, "approval_events")).toBe(1);
    const distinct = [
      await request(store, { principal: "bob" }),
      await request(store, { scope: "thread-2" }),
      await request(store, { callId: "c2" }),
      await request(store, { args: { orderId: "1234", amount: 21 } }),
    ];
    expect(new Set([first.id, ...distinct.map((a) => a.id)]).size).toBe(5);
    expect(countRows(handle, "approvals")).toBe(5);
  });

  it("is still the same approval after it was decided", async () => {
    const { store } = await setup();
    const first = await request(store);
    await store.decide(first.id, { approved: false, decidedBy: "bob" });
    expect(await request(store)).toMatchObject({ id: first.id, status: "denied" });
  });

  it("takes a per-request time to decide", async () => {
    const { store, start } = await setup();
    expect((await request(store, { ttlMs: 5_000 })).expiresAt).toBe(start + 5_000);
  });

  it("findFor finds the approval of exactly this call", async () => {
    const { store } = await setup();
    const approval = await request(store);
    expect((await store.findFor("alice", binding(approval)))?.id).toBe(approval.id);
    expect(await store.findFor("bob", binding(approval))).toBeUndefined();
    expect(await store.findFor("alice", { ...binding(approval), callId: "c9" })).toBeUndefined();
  });
});

describe("decide", () => {
  it("approves once; a second decision is refused with ApprovalAlreadyDecided", async () => {
    const { store, now, advance } = await setup();
    const approval = await request(store);
    advance(10);
    const decided = await store.decide(approval.id, { approved: true, reason: "  fine  ", decidedBy: "bob" });
    expect(decided).toMatchObject({
      status: "approved",
      decidedBy: "bob",
      decidedAt: now(),
      reason: "fine",
      editedArgs: null,
      updatedAt: now(),
    });
    const error = await thrown(() => store.decide(approval.id, { approved: false, decidedBy: "carol" }), ApprovalAlreadyDecided);
    expect(error).toMatchObject({
      name: "ApprovalAlreadyDecided",
      kind: "approval_already_decided",
      status: "approved",
      approvalId: approval.id,
    });
    expect(await store.get(approval.id)).toMatchObject({ status: "approved", decidedBy: "bob" });
    expect((await store.events(approval.id)).filter((e) => e.type === "decided")).toHaveLength(1);
  });

  it("stores absent values as SQL NULL, not JSON 'null'", async () => {
    const { store, handle } = await setup();
    const approval = await request(store);
    await store.decide(approval.id, { approved: true, decidedBy: "bob" });
    await store.consume(approval.id, binding(approval));
    expect(
      countRows(handle, "approvals", "edited_args is null and reason is null and result is null and message is null and run_id = 'run-1'"),
    ).toBe(1);
    expect(countRows(handle, "approval_events", "type = 'consumed' and data is null")).toBe(1);
    expect(countRows(handle, "approval_events", "type = 'decided' and json_extract(data, '$.approved') = 1")).toBe(1);
  });

  it("denies once with a reason", async () => {
    const { store } = await setup();
    const approval = await request(store);
    expect(await store.decide(approval.id, { approved: false, reason: "Too large", decidedBy: "bob" })).toMatchObject({
      status: "denied",
      reason: "Too large",
    });
    expect((await thrown(() => store.decide(approval.id, { approved: true, decidedBy: "bob" }), ApprovalAlreadyDecided)).status).toBe(
      "denied",
    );
  });

  it("an unknown id is ApprovalNotFound", async () => {
    const { store } = await setup();
    await expect(store.decide("apr_nope", { approved: true, decidedBy: "bob" })).rejects.toThrow(ApprovalNotFound);
    await expect(store.cancel("apr_nope", "bob")).rejects.toThrow(ApprovalNotFound);
    await expect(store.consume("apr_nope", { scope: "s", callId: "c", tool: "t", argsDigest: "d" })).rejects.toThrow(ApprovalNotFound);
  });

  it("after expiry is refused with ApprovalExpired, and the approval is marked expired", async () => {
    const { store, advance } = await setup();
    const approval = await request(store);
    advance(60_000);
    await expect(store.decide(approval.id, { approved: true, decidedBy: "bob" })).rejects.toThrow(ApprovalExpired);
    expect((await store.get(approval.id))?.status).toBe("expired");
    expect((await store.events(approval.id)).map((e) => e.type)).toEqual(["requested", "expired"]);
    await expect(store.decide(approval.id, { approved: true, decidedBy: "bob" })).rejects.toThrow(ApprovalExpired);
  });

  it("just before expiry still counts", async () => {
    const { store, advance } = await setup();
    const approval = await request(store);
    advance(59_999);
    expect((await store.decide(approval.id, { approved: true, decidedBy: "bob" })).status).toBe("approved");
  });

  it("validates edited arguments against the tool's schema, with issues", async () => {
    const { store } = await setup();
    const approval = await request(store);
    const error = await thrown(
      () => store.decide(approval.id, { approved: true, editedArgs: { orderId: "1234", amount: -5, note: "x" }, decidedBy: "bob" }),
      ApprovalDecisionInvalid,
    );
    expect(error.kind).toBe("approval_decision_invalid");
    expect(error.issues).toEqual(
      expect.arrayContaining([
        { path: "/amount", message: "must be >= 0" },
        { path: "/note", message: "is not allowed" },
      ]),
    );
    expect((await store.get(approval.id))?.status).toBe("pending");
    expect((await store.events(approval.id)).map((e) => e.type)).toEqual(["requested"]);
    const edited = await store.decide(approval.id, { approved: true, editedArgs: { orderId: "1234", amount: 5 }, decidedBy: "bob" });
    expect(edited.editedArgs).toEqual({ orderId: "1234", amount: 5 });
    expect(edited.args).toEqual(args);
    expect((await store.events(approval.id)).at(-1)?.data).toEqual({ approved: true, editedArgs: { orderId: "1234", amount: 5 } });
  });

  it("refuses edited arguments with a denial, non-object edits, an unknown tool, a missing decider and a long reason", async () => {
    const { store, registry } = await setup();
    const approval = await request(store);
    expect(
      (
        await thrown(
          () => store.decide(approval.id, { approved: false, editedArgs: { orderId: "1", amount: 1 }, decidedBy: "bob" }),
          ApprovalDecisionInvalid,
        )
      ).message,
    ).toMatch(/not a denial/);
    expect(
      (
        await thrown(
          () => store.decide(approval.id, { approved: true, editedArgs: [1] as unknown as Record<string, unknown>, decidedBy: "bob" }),
          ApprovalDecisionInvalid,
        )
      ).issues,
    ).toEqual([{ path: "", message: "must be an object" }]);
    await expect(store.decide(approval.id, { approved: true, decidedBy: "" })).rejects.toThrow(ApprovalDecisionInvalid);
    await expect(store.decide(approval.id, { approved: false, reason: "x".repeat(2001), decidedBy: "bob" })).rejects.toThrow(
      ApprovalDecisionInvalid,
    );
    await registry.remove("issue_refund");
    expect(
      (await thrown(() => store.decide(approval.id, { approved: true, editedArgs: args, decidedBy: "bob" }), ApprovalDecisionInvalid))
        .message,
    ).toMatch(/no longer registered/);
    expect((await store.get(approval.id))?.status).toBe("pending");
    expect(await store.events(approval.id)).toHaveLength(1);
  });
});

describe("expiry", () => {
  it("expireDue expires every pending approval past its time, once, with an audit row", async () => {
    const { store, advance, now } = await setup();
    const soon = await request(store, { callId: "a", ttlMs: 1_000 });
    const later = await request(store, { callId: "b", ttlMs: 10_000 });
    const decided = await request(store, { callId: "c", ttlMs: 1_000 });
    await store.decide(decided.id, { approved: true, decidedBy: "bob" });
    advance(999);
    expect(await store.expireDue()).toEqual([]);
    advance(1);
    const expired = await store.expireDue();
    expect(expired.map((a) => a.id)).toEqual([soon.id]);
    expect(expired[0]).toMatchObject({ status: "expired", updatedAt: now() });
    expect(await store.expireDue()).toEqual([]);
    expect((await store.events(soon.id)).at(-1)).toMatchObject({ type: "expired", actor: "system", createdAt: now() });
    expect((await store.get(later.id))?.status).toBe("pending");
    expect((await store.get(decided.id))?.status).toBe("approved");
    advance(10_000);
    expect((await store.expireDue()).map((a) => a.id)).toEqual([later.id]);
  });

  it("defaults to 24 hours", async () => {
    const handle = freshDatabase();
    open.push(handle);
    const store = new ApprovalStore(handle.db, { now: () => 1000 });
    expect((await request(store)).expiresAt).toBe(1000 + 24 * 3600 * 1000);
  });

  it("countPending leaves out approvals past their time even before they are marked", async () => {
    const { store, advance } = await setup();
    await request(store, { callId: "a", ttlMs: 1_000 });
    await request(store, { callId: "b", ttlMs: 5_000 });
    const decided = await request(store, { callId: "c" });
    await store.decide(decided.id, { approved: false, decidedBy: "bob" });
    expect(await store.countPending()).toBe(2);
    advance(1_000);
    expect(await store.countPending()).toBe(1);
    advance(4_000);
    expect(await store.countPending()).toBe(0);
  });
});

describe("cancel", () => {
  it("withdraws a pending or approved approval, with who and why", async () => {
    const { store, now } = await setup();
    const pending = await request(store, { callId: "a" });
    expect(await store.cancel(pending.id, "operator", "run stopped")).toMatchObject({ status: "cancelled", reason: "run stopped" });
    expect((await store.events(pending.id)).at(-1)).toMatchObject({
      type: "cancelled",
      actor: "operator",
      data: { reason: "run stopped" },
      createdAt: now(),
    });
    const approved = await request(store, { callId: "b" });
    await store.decide(approved.id, { approved: true, decidedBy: "bob" });
    expect((await store.cancel(approved.id, "operator")).status).toBe("cancelled");
    await expect(store.consume(approved.id, binding(approved))).rejects.toThrow(ApprovalNotUsable);
  });

  it("refuses to cancel what is denied, consumed or cancelled", async () => {
    const { store } = await setup();
    const denied = await request(store, { callId: "a" });
    await store.decide(denied.id, { approved: false, decidedBy: "bob" });
    expect((await thrown(() => store.cancel(denied.id, "operator"), ApprovalAlreadyDecided)).status).toBe("denied");
    const used = await request(store, { callId: "b" });
    await store.decide(used.id, { approved: true, decidedBy: "bob" });
    await store.consume(used.id, binding(used));
    expect((await thrown(() => store.cancel(used.id, "operator"), ApprovalAlreadyDecided)).status).toBe("consumed");
    const cancelled = await request(store, { callId: "c" });
    await store.cancel(cancelled.id, "operator");
    await expect(store.cancel(cancelled.id, "operator")).rejects.toThrow(ApprovalAlreadyDecided);
    await expect(store.decide(cancelled.id, { approved: true, decidedBy: "bob" })).rejects.toThrow(ApprovalAlreadyDecided);
  });
});

describe("consume", () => {
  it("uses an approved approval once", async () => {
    const { store, now } = await setup();
    const approval = await request(store);
    await store.decide(approval.id, { approved: true, decidedBy: "bob" });
    expect(await store.consume(approval.id, binding(approval))).toMatchObject({ status: "consumed", consumedAt: now() });
    const again = await thrown(() => store.consume(approval.id, binding(approval)), ApprovalNotUsable);
    expect(again.message).toMatch(/used already/);
    expect((await store.events(approval.id)).filter((e) => e.type === "consumed")).toHaveLength(1);
  });

  it("refuses an approval that is not approved", async () => {
    const { store } = await setup();
    const pending = await request(store, { callId: "a" });
    expect((await thrown(() => store.consume(pending.id, binding(pending)), ApprovalNotUsable)).message).toMatch(/it is pending/);
    const denied = await request(store, { callId: "b" });
    await store.decide(denied.id, { approved: false, decidedBy: "bob" });
    expect((await thrown(() => store.consume(denied.id, binding(denied)), ApprovalNotUsable)).message).toMatch(/it is denied/);
  });

  it.each([
    ["scope", { scope: "thread-2" }],
    ["call id", { callId: "c2" }],
    ["tool", { tool: "create_ticket" }],
    ["argument digest", { argsDigest: jsonDigest({ orderId: "1234", amount: 2000 }) }],
  ])("is bound to its %s", async (_label, change) => {
    const { store } = await setup();
    const approval = await request(store);
    await store.decide(approval.id, { approved: true, decidedBy: "bob" });
    expect((await thrown(() => store.consume(approval.id, { ...binding(approval), ...change }), ApprovalNotUsable)).message).toMatch(
      /another call/,
    );
    expect((await store.get(approval.id))?.status).toBe("approved");
    expect((await store.consume(approval.id, binding(approval))).status).toBe("consumed");
  });

  it("recordOutcome keeps what the call returned and when, with a 'ran' row", async () => {
    const { store, now, advance } = await setup();
    const approval = await request(store);
    await store.decide(approval.id, { approved: true, decidedBy: "bob" });
    await store.consume(approval.id, binding(approval));
    advance(5);
    await store.recordOutcome(approval.id, { ok: true, value: { refundId: "rf_1" } });
    expect(await store.get(approval.id)).toMatchObject({ result: { ok: true, value: { refundId: "rf_1" } }, ranAt: now() });
    expect((await store.events(approval.id)).at(-1)).toMatchObject({
      type: "ran",
      actor: "executor",
      data: { ok: true, value: { refundId: "rf_1" } },
      createdAt: now(),
    });
    await store.recordOutcome(approval.id, "plain");
    expect((await store.get(approval.id))?.result).toEqual({ value: "plain" });
  });
});

describe("the audit trail", () => {
  it("records requested, decided, consumed and ran, with actor and time, in order", async () => {
    const { store, registry, handle, advance, start } = await setup();
    const executor = new Executor({ registry, approvals: new ApprovalGate(store, () => start), record: new CallResults(handle.db) });
    const ctx = { principal: "alice", scope: "thread-1", runId: "run-1", surface: "agui" as const };
    const pending = await executor.call("issue_refund", args, { callId: "c1", ctx });
    const id = approvalIdOf(pending);
    advance(100);
    await store.decide(id, { approved: true, reason: "ok", decidedBy: "bob" });
    advance(100);
    const done = await executor.call("issue_refund", args, { callId: "c1", ctx });
    expect(done).toEqual({ ok: true, value: { refundId: "rf_1" } });
    const events = await store.events(id);
    expect(events.map((e) => [e.type, e.actor, e.createdAt - start])).toEqual([
      ["requested", "alice", 0],
      ["decided", "bob", 100],
      ["consumed", "executor", 200],
      ["ran", "executor", 200],
    ]);
    expect(events[1]!.data).toEqual({ approved: true, reason: "ok" });
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => a - b));
  });

  it("tells listeners of every change, and a failing listener undoes nothing", async () => {
    const { store } = await setup();
    const seen: ApprovalChange["type"][] = [];
    store.onChange(() => {
      throw new Error("listener bug");
    });
    const off = store.onChange((change) => seen.push(change.type));
    const approval = await request(store);
    await request(store);
    await store.decide(approval.id, { approved: true, decidedBy: "bob" });
    await store.consume(approval.id, binding(approval));
    await store.recordOutcome(approval.id, { ok: true });
    off();
    await store.cancel((await request(store, { callId: "c2" })).id, "x");
    expect(seen).toEqual(["requested", "decided", "consumed", "ran"]);
    expect((await store.get(approval.id))?.status).toBe("consumed");
  });
});

describe("grants", () => {
  it("reading a grant writes nothing; a changed definition revokes the grants made for the old one", async () => {
    const { handle } = await setup();
    const grants = new SqliteGrants(handle.db);
    await grants.grant({ tool: "issue_refund", threadId: "t1", toolDigest: "v1", grantedBy: "alice" });
    const events = () => countRows(handle, "tool_events");
    const before = events();
    expect(await grants.activeFor("issue_refund", "t1", "v2")).toBeUndefined();
    expect(await grants.activeFor("issue_refund", "t1", "v1")).toBeDefined();
    expect(events()).toBe(before);
    expect(await grants.revokeStale([{ name: "issue_refund", digest: "v2" }])).toBe(1);
    expect(await grants.activeFor("issue_refund", "t1", "v1")).toBeUndefined();
    expect((await grants.forTool("issue_refund"))[0]).toMatchObject({ revokedBy: "system" });
    expect(await grants.revokeStale([{ name: "issue_refund", digest: "v2" }])).toBe(0);
  });
});

describe("list", () => {
  async function populate() {
    const ctx = await setup();
    const { store, advance } = ctx;
    const made: Approval[] = [];
    for (let i = 0; i < 25; i++) {
      // Pairs share a creation time: the cursor must break ties by id.
      if (i % 2 === 0) advance(1);
      made.push(
        await request(store, {
          callId: `c${i}`,
          principal: i % 3 === 0 ? "bob" : "alice",
          threadId: i < 10 ? "thread-a" : "thread-b",
          runId: `run-${i % 5}`,
          surface: i % 4 === 0 ? "mcp" : "agui",
          tool: i % 5 === 0 ? "create_ticket" : "issue_refund",
          args: { orderId: `order-${i}`, amount: i },
        }),
      );
    }
    return { ...ctx, made };
  }
  const ids = (items: Approval[]) => items.map((a) => a.id);
  const newestFirst = (items: Approval[]) => [...items].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));

  it("lists newest first and pages with a cursor, each once", async () => {
    const { store, made } = await populate();
    const seen: Approval[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ limit: 10, cursor });
      seen.push(...page.items);
      sizes.push(page.items.length);
      cursor = page.nextCursor;
    } while (cursor && sizes.length < 10);
    expect(sizes).toEqual([10, 10, 5]);
    expect(ids(seen)).toEqual(ids(newestFirst(made)));
  });

  it("filters by status, tool, thread, run, principal, surface and text", async () => {
    const { store, made } = await populate();
    await store.decide(made[0]!.id, { approved: true, decidedBy: "x" });
    await store.decide(made[1]!.id, { approved: false, decidedBy: "x" });
    const all = async (filter: Parameters<ApprovalStore["list"]>[0]) => ids((await store.list({ limit: 500, ...filter })).items).sort();
    const expected = (pick: (a: Approval, i: number) => boolean) => ids(made.filter(pick)).sort();
    expect(await all({ status: "approved" })).toEqual([made[0]!.id]);
    expect(await all({ status: ["approved", "denied"] })).toEqual([made[0]!.id, made[1]!.id].sort());
    expect(await all({ status: "pending" })).toHaveLength(23);
    expect(await all({ status: [] })).toHaveLength(25);
    expect(await all({ tool: "create_ticket" })).toEqual(expected((_a, i) => i % 5 === 0));
    expect(await all({ threadId: "thread-a" })).toEqual(expected((_a, i) => i < 10));
    expect(await all({ runId: "run-2" })).toEqual(expected((_a, i) => i % 5 === 2));
    expect(await all({ principal: "bob" })).toEqual(expected((_a, i) => i % 3 === 0));
    expect(await all({ surface: "mcp" })).toEqual(expected((_a, i) => i % 4 === 0));
    expect(await all({ text: "order-17" })).toEqual([made[17]!.id]);
    expect(await all({ text: "TICKET" })).toEqual(expected((_a, i) => i % 5 === 0));
    expect(await all({ text: "ticket order-10" })).toEqual([made[10]!.id]);
    expect(await all({ text: "%" })).toEqual([]);
    expect(await all({ principal: "bob", tool: "create_ticket", status: "pending" })).toEqual(expected((_a, i) => i % 15 === 0 && i !== 0));
  });

  it("finds a principal by a word with LIKE's own characters in it, matched literally", async () => {
    const { store } = await setup();
    const mine = await request(store, { callId: "u1", principal: "token:ci_bot", args: { orderId: "x" } });
    await request(store, { callId: "u2", principal: "token:cixbot", args: { orderId: "y" } });
    // "_" is LIKE's any-character: unescaped it would also match "cixbot"; escaped without an ESCAPE clause it matched nothing.
    expect(ids((await store.list({ text: "ci_bot" })).items)).toEqual([mine.id]);
  });

  it("pages a filtered list", async () => {
    const { store, made } = await populate();
    const seen: Approval[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ threadId: "thread-b", limit: 4, cursor });
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids(seen)).toEqual(ids(newestFirst(made.slice(10))));
  });

  it("refuses a forged cursor", async () => {
    const { store } = await populate();
    await expect(store.list({ cursor: "garbage" })).rejects.toThrow(InvalidCursor);
    await expect(store.list({ cursor: Buffer.from(JSON.stringify(["x", "y"])).toString("base64url") })).rejects.toThrow(InvalidCursor);
  });
});

describe("the approval gate", () => {
  it("an operator's policy takes precedence over the tool's own", async () => {
    const { store, registry, handle } = await setup();
    let runs = 0;
    await registry.add({ name: "lookup", description: "read", inputSchema: { type: "object" } }, () => ++runs);
    const executor = new Executor({ registry, approvals: new ApprovalGate(store), record: new CallResults(handle.db) });
    expect(await executor.call("lookup", {})).toMatchObject({ ok: true });
    await registry.update("lookup", { approval: "always" });
    expect(await executor.call("lookup", {})).toMatchObject({ pending: { approvalId: expect.any(String) } });
    registry.bindHandler("issue_refund", () => ++runs);
    await registry.update("issue_refund", { approval: "never" });
    expect(await executor.call("issue_refund", args)).toMatchObject({ ok: true });
    expect(runs).toBe(2);
    expect(await store.countPending()).toBe(1);
  });
});

describe("two concurrent decisions", () => {
  it("exactly one wins, the other gets ApprovalAlreadyDecided, and one 'decided' row is written", async () => {
    const { handle } = await setup();
    // The workers decide on the real clock, so the approvals are asked for on it too.
    const store = new ApprovalStore(handle.db);
    const rounds = 8;
    const barrier = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * rounds * 2);
    const slots = new Int32Array(barrier);
    // Two threads, each with its own connection to the file: SQLite's locking is what decides.
    const workers = [0, 1].map(() => startTsWorker(new URL("./support/decide-worker.ts", import.meta.url), { file: handle.path, barrier }));
    try {
      const answers = workers.map(() => [] as DecideAnswer[]);
      const waiters = new Map<string, (answer: DecideAnswer) => void>();
      await Promise.all(
        workers.map(
          (worker, w) =>
            new Promise<void>((resolve, reject) => {
              worker.once("error", reject);
              worker.on("message", (message: DecideAnswer | "ready") => {
                if (message === "ready") return resolve();
                answers[w]!.push(message);
                waiters.get(`${w}:${message.round}`)?.(message);
              });
            }),
        ),
      );

      for (let round = 0; round < rounds; round++) {
        const approval = await request(store, { callId: `race-${round}` });
        const replies = workers.map((worker, w) => {
          const reply = new Promise<DecideAnswer>((resolve) => waiters.set(`${w}:${round}`, resolve));
          const message: DecideRequest = { round, approvalId: approval.id, approved: w === 0, decidedBy: `worker-${w}` };
          worker.postMessage(message);
          return reply;
        });
        // Both workers are parked at the barrier before either may decide.
        while (Atomics.load(slots, round * 2) < 2) await new Promise((resolve) => setTimeout(resolve, 1));
        Atomics.store(slots, round * 2 + 1, 1);
        Atomics.notify(slots, round * 2 + 1);
        const results = await Promise.all(replies);

        const winners = results.filter((r) => r.ok);
        const losers = results.filter((r) => !r.ok);
        expect(winners, JSON.stringify(results)).toHaveLength(1);
        expect(losers[0]!.error).toMatchObject({ name: "ApprovalAlreadyDecided" });
        const winner = winners[0]!;
        const stored = (await store.get(approval.id))!;
        expect(stored.decidedBy).toBe(winner.decidedBy);
        expect(stored.status).toBe(winner.decidedBy === "worker-0" ? "approved" : "denied");
        expect(losers[0]!.error!.message).toContain(`already ${stored.status}`);
        const decided = (await store.events(approval.id)).filter((e) => e.type === "decided");
        expect(decided).toHaveLength(1);
        expect(decided[0]!.actor).toBe(winner.decidedBy);
      }
      expect(countRows(handle, "approval_events", "type = 'decided'")).toBe(rounds);
      expect(answers.flat()).toHaveLength(rounds * 2);
    } finally {
      for (const worker of workers) worker.postMessage("close");
      await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once("exit", resolve))));
    }
  });
});

describe("calls cut off by a stop (settleInterrupted, run at start-up)", () => {
  it("gives a used approval without an outcome the call record's result, or outcome_unknown; the others are untouched; once only", async () => {
    const { handle, store } = await setup();
    const approve = async (callId: string) => {
      const approval = await request(store, { callId });
      await store.decide(approval.id, { approved: true, decidedBy: "bob" });
      return await store.consume(approval.id, binding(approval));
    };
    const cut = await approve("cut");
    const recorded = await approve("recorded");
    await new CallResults(handle.db).put({ principal: "alice", ...binding(recorded) }, { ok: true, value: { refundId: "rf_9" } }, 5, args);
    const finished = await approve("finished");
    await store.recordOutcome(finished.id, { ok: true, value: { refundId: "rf_2" } });
    const waiting = await request(store, { callId: "waiting" });
    const heard: string[] = [];
    store.onChange((change) => heard.push(`${change.type} ${change.approval.callId}`));

    const settled = await store.settleInterrupted();
    expect(settled.map((a) => a.callId).sort()).toEqual(["cut", "recorded"]);
    expect(await store.get(cut.id)).toMatchObject({
      status: "consumed",
      ranAt: null,
      result: { ok: false, error: { kind: "outcome_unknown" } },
    });
    expect(await store.get(recorded.id)).toMatchObject({
      status: "consumed",
      ranAt: expect.any(Number),
      result: { ok: true, value: { refundId: "rf_9" } },
    });
    expect((await store.get(finished.id))?.result).toEqual({ ok: true, value: { refundId: "rf_2" } });
    expect(await store.get(waiting.id)).toMatchObject({ status: "pending", result: null });
    expect((await store.events(cut.id)).at(-1)).toMatchObject({
      type: "ran",
      actor: "system",
      data: { ok: false, error: { kind: "outcome_unknown" } },
    });
    expect(heard.sort()).toEqual(["ran cut", "ran recorded"]);
    expect(await store.settleInterrupted()).toEqual([]);
  });
});
