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
  GrantStore,
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

function setup(ttlMs = 60_000) {
  const handle = freshDatabase();
  open.push(handle);
  const start = 1_700_000_000_000;
  let clock = start;
  const registry = new ToolRegistry(handle.db);
  registry.add(
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

function request(store: ApprovalStore, overrides: Partial<ApprovalRequest> = {}): Approval {
  return store.request({
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

function thrown<T extends Error>(fn: () => unknown, type: new (...a: never[]) => T): T {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error(`expected ${type.name}`);
}

describe("request", () => {
  it("creates a pending approval with its expiry and a 'requested' audit row", () => {
    const { store, handle, start } = setup();
    const approval = request(store, { message: "Refund 20 EUR?" });
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
    expect(store.get(approval.id)).toEqual(approval);
    expect(store.events(approval.id)).toMatchObject([{ type: "requested", actor: "alice", data: { args }, createdAt: start }]);
    expect(countRows(handle, "approvals")).toBe(1);
  });

  it("is idempotent for the same principal, scope, call, tool and arguments", () => {
    const { store, handle, advance } = setup();
    const first = request(store);
    advance(1000);
    expect(request(store, { args: { amount: 20, orderId: "1234" } }).id).toBe(first.id);
    expect(request(store, { message: "other text", runId: "run-2" })).toEqual(first);
    expect(countRows(handle, "approvals")).toBe(1);
    expect(countRows(handle, "approval_events")).toBe(1);
    const distinct = [
      request(store, { principal: "bob" }),
      request(store, { scope: "thread-2" }),
      request(store, { callId: "c2" }),
      request(store, { args: { orderId: "1234", amount: 21 } }),
    ];
    expect(new Set([first.id, ...distinct.map((a) => a.id)]).size).toBe(5);
    expect(countRows(handle, "approvals")).toBe(5);
  });

  it("is still the same approval after it was decided", () => {
    const { store } = setup();
    const first = request(store);
    store.decide(first.id, { approved: false, decidedBy: "bob" });
    expect(request(store)).toMatchObject({ id: first.id, status: "denied" });
  });

  it("takes a per-request time to decide", () => {
    const { store, start } = setup();
    expect(request(store, { ttlMs: 5_000 }).expiresAt).toBe(start + 5_000);
  });

  it("findFor finds the approval of exactly this call", () => {
    const { store } = setup();
    const approval = request(store);
    expect(store.findFor("alice", binding(approval))?.id).toBe(approval.id);
    expect(store.findFor("bob", binding(approval))).toBeUndefined();
    expect(store.findFor("alice", { ...binding(approval), callId: "c9" })).toBeUndefined();
  });
});

describe("decide", () => {
  it("approves once; a second decision is refused with ApprovalAlreadyDecided", () => {
    const { store, now, advance } = setup();
    const approval = request(store);
    advance(10);
    const decided = store.decide(approval.id, { approved: true, reason: "  fine  ", decidedBy: "bob" });
    expect(decided).toMatchObject({
      status: "approved",
      decidedBy: "bob",
      decidedAt: now(),
      reason: "fine",
      editedArgs: null,
      updatedAt: now(),
    });
    const error = thrown(() => store.decide(approval.id, { approved: false, decidedBy: "carol" }), ApprovalAlreadyDecided);
    expect(error).toMatchObject({
      name: "ApprovalAlreadyDecided",
      kind: "approval_already_decided",
      status: "approved",
      approvalId: approval.id,
    });
    expect(store.get(approval.id)).toMatchObject({ status: "approved", decidedBy: "bob" });
    expect(store.events(approval.id).filter((e) => e.type === "decided")).toHaveLength(1);
  });

  it("stores absent values as SQL NULL, not JSON 'null'", () => {
    const { store, handle } = setup();
    const approval = request(store);
    store.decide(approval.id, { approved: true, decidedBy: "bob" });
    store.consume(approval.id, binding(approval));
    expect(
      countRows(handle, "approvals", "edited_args is null and reason is null and result is null and message is null and run_id = 'run-1'"),
    ).toBe(1);
    expect(countRows(handle, "approval_events", "type = 'consumed' and data is null")).toBe(1);
    expect(countRows(handle, "approval_events", "type = 'decided' and json_extract(data, '$.approved') = 1")).toBe(1);
  });

  it("denies once with a reason", () => {
    const { store } = setup();
    const approval = request(store);
    expect(store.decide(approval.id, { approved: false, reason: "Too large", decidedBy: "bob" })).toMatchObject({
      status: "denied",
      reason: "Too large",
    });
    expect(thrown(() => store.decide(approval.id, { approved: true, decidedBy: "bob" }), ApprovalAlreadyDecided).status).toBe("denied");
  });

  it("an unknown id is ApprovalNotFound", () => {
    const { store } = setup();
    expect(() => store.decide("apr_nope", { approved: true, decidedBy: "bob" })).toThrow(ApprovalNotFound);
    expect(() => store.cancel("apr_nope", "bob")).toThrow(ApprovalNotFound);
    expect(() => store.consume("apr_nope", { scope: "s", callId: "c", tool: "t", argsDigest: "d" })).toThrow(ApprovalNotFound);
  });

  it("after expiry is refused with ApprovalExpired, and the approval is marked expired", () => {
    const { store, advance } = setup();
    const approval = request(store);
    advance(60_000);
    expect(() => store.decide(approval.id, { approved: true, decidedBy: "bob" })).toThrow(ApprovalExpired);
    expect(store.get(approval.id)?.status).toBe("expired");
    expect(store.events(approval.id).map((e) => e.type)).toEqual(["requested", "expired"]);
    expect(() => store.decide(approval.id, { approved: true, decidedBy: "bob" })).toThrow(ApprovalExpired);
  });

  it("just before expiry still counts", () => {
    const { store, advance } = setup();
    const approval = request(store);
    advance(59_999);
    expect(store.decide(approval.id, { approved: true, decidedBy: "bob" }).status).toBe("approved");
  });

  it("validates edited arguments against the tool's schema, with issues", () => {
    const { store } = setup();
    const approval = request(store);
    const error = thrown(
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
    expect(store.get(approval.id)?.status).toBe("pending");
    expect(store.events(approval.id).map((e) => e.type)).toEqual(["requested"]);
    const edited = store.decide(approval.id, { approved: true, editedArgs: { orderId: "1234", amount: 5 }, decidedBy: "bob" });
    expect(edited.editedArgs).toEqual({ orderId: "1234", amount: 5 });
    expect(edited.args).toEqual(args);
    expect(store.events(approval.id).at(-1)?.data).toEqual({ approved: true, editedArgs: { orderId: "1234", amount: 5 } });
  });

  it("refuses edited arguments with a denial, non-object edits, an unknown tool, a missing decider and a long reason", () => {
    const { store, registry } = setup();
    const approval = request(store);
    expect(
      thrown(
        () => store.decide(approval.id, { approved: false, editedArgs: { orderId: "1", amount: 1 }, decidedBy: "bob" }),
        ApprovalDecisionInvalid,
      ).message,
    ).toMatch(/not a denial/);
    expect(
      thrown(
        () => store.decide(approval.id, { approved: true, editedArgs: [1] as unknown as Record<string, unknown>, decidedBy: "bob" }),
        ApprovalDecisionInvalid,
      ).issues,
    ).toEqual([{ path: "", message: "must be an object" }]);
    expect(() => store.decide(approval.id, { approved: true, decidedBy: "" })).toThrow(ApprovalDecisionInvalid);
    expect(() => store.decide(approval.id, { approved: false, reason: "x".repeat(2001), decidedBy: "bob" })).toThrow(
      ApprovalDecisionInvalid,
    );
    registry.remove("issue_refund");
    expect(
      thrown(() => store.decide(approval.id, { approved: true, editedArgs: args, decidedBy: "bob" }), ApprovalDecisionInvalid).message,
    ).toMatch(/no longer registered/);
    expect(store.get(approval.id)?.status).toBe("pending");
    expect(store.events(approval.id)).toHaveLength(1);
  });
});

describe("expiry", () => {
  it("expireDue expires every pending approval past its time, once, with an audit row", () => {
    const { store, advance, now } = setup();
    const soon = request(store, { callId: "a", ttlMs: 1_000 });
    const later = request(store, { callId: "b", ttlMs: 10_000 });
    const decided = request(store, { callId: "c", ttlMs: 1_000 });
    store.decide(decided.id, { approved: true, decidedBy: "bob" });
    advance(999);
    expect(store.expireDue()).toEqual([]);
    advance(1);
    const expired = store.expireDue();
    expect(expired.map((a) => a.id)).toEqual([soon.id]);
    expect(expired[0]).toMatchObject({ status: "expired", updatedAt: now() });
    expect(store.expireDue()).toEqual([]);
    expect(store.events(soon.id).at(-1)).toMatchObject({ type: "expired", actor: "system", createdAt: now() });
    expect(store.get(later.id)?.status).toBe("pending");
    expect(store.get(decided.id)?.status).toBe("approved");
    advance(10_000);
    expect(store.expireDue().map((a) => a.id)).toEqual([later.id]);
  });

  it("defaults to 24 hours", () => {
    const handle = freshDatabase();
    open.push(handle);
    const store = new ApprovalStore(handle.db, { now: () => 1000 });
    expect(request(store).expiresAt).toBe(1000 + 24 * 3600 * 1000);
  });

  it("countPending leaves out approvals past their time even before they are marked", () => {
    const { store, advance } = setup();
    request(store, { callId: "a", ttlMs: 1_000 });
    request(store, { callId: "b", ttlMs: 5_000 });
    const decided = request(store, { callId: "c" });
    store.decide(decided.id, { approved: false, decidedBy: "bob" });
    expect(store.countPending()).toBe(2);
    advance(1_000);
    expect(store.countPending()).toBe(1);
    advance(4_000);
    expect(store.countPending()).toBe(0);
  });
});

describe("cancel", () => {
  it("withdraws a pending or approved approval, with who and why", () => {
    const { store, now } = setup();
    const pending = request(store, { callId: "a" });
    expect(store.cancel(pending.id, "operator", "run stopped")).toMatchObject({ status: "cancelled", reason: "run stopped" });
    expect(store.events(pending.id).at(-1)).toMatchObject({
      type: "cancelled",
      actor: "operator",
      data: { reason: "run stopped" },
      createdAt: now(),
    });
    const approved = request(store, { callId: "b" });
    store.decide(approved.id, { approved: true, decidedBy: "bob" });
    expect(store.cancel(approved.id, "operator").status).toBe("cancelled");
    expect(() => store.consume(approved.id, binding(approved))).toThrow(ApprovalNotUsable);
  });

  it("refuses to cancel what is denied, consumed or cancelled", () => {
    const { store } = setup();
    const denied = request(store, { callId: "a" });
    store.decide(denied.id, { approved: false, decidedBy: "bob" });
    expect(thrown(() => store.cancel(denied.id, "operator"), ApprovalAlreadyDecided).status).toBe("denied");
    const used = request(store, { callId: "b" });
    store.decide(used.id, { approved: true, decidedBy: "bob" });
    store.consume(used.id, binding(used));
    expect(thrown(() => store.cancel(used.id, "operator"), ApprovalAlreadyDecided).status).toBe("consumed");
    const cancelled = request(store, { callId: "c" });
    store.cancel(cancelled.id, "operator");
    expect(() => store.cancel(cancelled.id, "operator")).toThrow(ApprovalAlreadyDecided);
    expect(() => store.decide(cancelled.id, { approved: true, decidedBy: "bob" })).toThrow(ApprovalAlreadyDecided);
  });
});

describe("consume", () => {
  it("uses an approved approval once", () => {
    const { store, now } = setup();
    const approval = request(store);
    store.decide(approval.id, { approved: true, decidedBy: "bob" });
    expect(store.consume(approval.id, binding(approval))).toMatchObject({ status: "consumed", consumedAt: now() });
    const again = thrown(() => store.consume(approval.id, binding(approval)), ApprovalNotUsable);
    expect(again.message).toMatch(/used already/);
    expect(store.events(approval.id).filter((e) => e.type === "consumed")).toHaveLength(1);
  });

  it("refuses an approval that is not approved", () => {
    const { store } = setup();
    const pending = request(store, { callId: "a" });
    expect(thrown(() => store.consume(pending.id, binding(pending)), ApprovalNotUsable).message).toMatch(/it is pending/);
    const denied = request(store, { callId: "b" });
    store.decide(denied.id, { approved: false, decidedBy: "bob" });
    expect(thrown(() => store.consume(denied.id, binding(denied)), ApprovalNotUsable).message).toMatch(/it is denied/);
  });

  it.each([
    ["scope", { scope: "thread-2" }],
    ["call id", { callId: "c2" }],
    ["tool", { tool: "create_ticket" }],
    ["argument digest", { argsDigest: jsonDigest({ orderId: "1234", amount: 2000 }) }],
  ])("is bound to its %s", (_label, change) => {
    const { store } = setup();
    const approval = request(store);
    store.decide(approval.id, { approved: true, decidedBy: "bob" });
    expect(thrown(() => store.consume(approval.id, { ...binding(approval), ...change }), ApprovalNotUsable).message).toMatch(
      /another call/,
    );
    expect(store.get(approval.id)?.status).toBe("approved");
    expect(store.consume(approval.id, binding(approval)).status).toBe("consumed");
  });

  it("recordOutcome keeps what the call returned and when, with a 'ran' row", () => {
    const { store, now, advance } = setup();
    const approval = request(store);
    store.decide(approval.id, { approved: true, decidedBy: "bob" });
    store.consume(approval.id, binding(approval));
    advance(5);
    store.recordOutcome(approval.id, { ok: true, value: { refundId: "rf_1" } });
    expect(store.get(approval.id)).toMatchObject({ result: { ok: true, value: { refundId: "rf_1" } }, ranAt: now() });
    expect(store.events(approval.id).at(-1)).toMatchObject({
      type: "ran",
      actor: "executor",
      data: { ok: true, value: { refundId: "rf_1" } },
      createdAt: now(),
    });
    store.recordOutcome(approval.id, "plain");
    expect(store.get(approval.id)?.result).toEqual({ value: "plain" });
  });
});

describe("the audit trail", () => {
  it("records requested, decided, consumed and ran, with actor and time, in order", async () => {
    const { store, registry, handle, advance, start } = setup();
    const executor = new Executor({ registry, approvals: new ApprovalGate(store, () => start), record: new CallResults(handle.db) });
    const ctx = { principal: "alice", scope: "thread-1", runId: "run-1", surface: "agui" as const };
    const pending = await executor.call("issue_refund", args, { callId: "c1", ctx });
    const id = approvalIdOf(pending);
    advance(100);
    store.decide(id, { approved: true, reason: "ok", decidedBy: "bob" });
    advance(100);
    const done = await executor.call("issue_refund", args, { callId: "c1", ctx });
    expect(done).toEqual({ ok: true, value: { refundId: "rf_1" } });
    const events = store.events(id);
    expect(events.map((e) => [e.type, e.actor, e.createdAt - start])).toEqual([
      ["requested", "alice", 0],
      ["decided", "bob", 100],
      ["consumed", "executor", 200],
      ["ran", "executor", 200],
    ]);
    expect(events[1]!.data).toEqual({ approved: true, reason: "ok" });
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => a - b));
  });

  it("tells listeners of every change, and a failing listener undoes nothing", () => {
    const { store } = setup();
    const seen: ApprovalChange["type"][] = [];
    store.onChange(() => {
      throw new Error("listener bug");
    });
    const off = store.onChange((change) => seen.push(change.type));
    const approval = request(store);
    request(store);
    store.decide(approval.id, { approved: true, decidedBy: "bob" });
    store.consume(approval.id, binding(approval));
    store.recordOutcome(approval.id, { ok: true });
    off();
    store.cancel(request(store, { callId: "c2" }).id, "x");
    expect(seen).toEqual(["requested", "decided", "consumed", "ran"]);
    expect(store.get(approval.id)?.status).toBe("consumed");
  });
});

describe("grants", () => {
  it("reading a grant writes nothing; a changed definition revokes the grants made for the old one", () => {
    const { handle } = setup();
    const grants = new GrantStore(handle.db);
    grants.grant({ tool: "issue_refund", threadId: "t1", toolDigest: "v1", grantedBy: "alice" });
    const events = () => countRows(handle, "tool_events");
    const before = events();
    expect(grants.activeFor("issue_refund", "t1", "v2")).toBeUndefined();
    expect(grants.activeFor("issue_refund", "t1", "v1")).toBeDefined();
    expect(events()).toBe(before);
    expect(grants.revokeStale([{ name: "issue_refund", digest: "v2" }])).toBe(1);
    expect(grants.activeFor("issue_refund", "t1", "v1")).toBeUndefined();
    expect(grants.forTool("issue_refund")[0]).toMatchObject({ revokedBy: "system" });
    expect(grants.revokeStale([{ name: "issue_refund", digest: "v2" }])).toBe(0);
  });
});

describe("list", () => {
  function populate() {
    const ctx = setup();
    const { store, advance } = ctx;
    const made: Approval[] = [];
    for (let i = 0; i < 25; i++) {
      // Pairs share a creation time: the cursor must break ties by id.
      if (i % 2 === 0) advance(1);
      made.push(
        request(store, {
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

  it("lists newest first and pages with a cursor, each once", () => {
    const { store, made } = populate();
    const seen: Approval[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = store.list({ limit: 10, cursor });
      seen.push(...page.items);
      sizes.push(page.items.length);
      cursor = page.nextCursor;
    } while (cursor && sizes.length < 10);
    expect(sizes).toEqual([10, 10, 5]);
    expect(ids(seen)).toEqual(ids(newestFirst(made)));
  });

  it("filters by status, tool, thread, run, principal, surface and text", () => {
    const { store, made } = populate();
    store.decide(made[0]!.id, { approved: true, decidedBy: "x" });
    store.decide(made[1]!.id, { approved: false, decidedBy: "x" });
    const all = (filter: Parameters<ApprovalStore["list"]>[0]) => ids(store.list({ limit: 500, ...filter }).items).sort();
    const expected = (pick: (a: Approval, i: number) => boolean) => ids(made.filter(pick)).sort();
    expect(all({ status: "approved" })).toEqual([made[0]!.id]);
    expect(all({ status: ["approved", "denied"] })).toEqual([made[0]!.id, made[1]!.id].sort());
    expect(all({ status: "pending" })).toHaveLength(23);
    expect(all({ status: [] })).toHaveLength(25);
    expect(all({ tool: "create_ticket" })).toEqual(expected((_a, i) => i % 5 === 0));
    expect(all({ threadId: "thread-a" })).toEqual(expected((_a, i) => i < 10));
    expect(all({ runId: "run-2" })).toEqual(expected((_a, i) => i % 5 === 2));
    expect(all({ principal: "bob" })).toEqual(expected((_a, i) => i % 3 === 0));
    expect(all({ surface: "mcp" })).toEqual(expected((_a, i) => i % 4 === 0));
    expect(all({ text: "order-17" })).toEqual([made[17]!.id]);
    expect(all({ text: "TICKET" })).toEqual(expected((_a, i) => i % 5 === 0));
    expect(all({ text: "ticket order-10" })).toEqual([made[10]!.id]);
    expect(all({ text: "%" })).toEqual([]);
    expect(all({ principal: "bob", tool: "create_ticket", status: "pending" })).toEqual(expected((_a, i) => i % 15 === 0 && i !== 0));
  });

  it("finds a principal by a word with LIKE's own characters in it, matched literally", () => {
    const { store } = setup();
    const mine = request(store, { callId: "u1", principal: "token:ci_bot", args: { orderId: "x" } });
    request(store, { callId: "u2", principal: "token:cixbot", args: { orderId: "y" } });
    // "_" is LIKE's any-character: unescaped it would also match "cixbot"; escaped without an ESCAPE clause it matched nothing.
    expect(ids(store.list({ text: "ci_bot" }).items)).toEqual([mine.id]);
  });

  it("pages a filtered list", () => {
    const { store, made } = populate();
    const seen: Approval[] = [];
    let cursor: string | undefined;
    do {
      const page = store.list({ threadId: "thread-b", limit: 4, cursor });
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids(seen)).toEqual(ids(newestFirst(made.slice(10))));
  });

  it("refuses a forged cursor", () => {
    const { store } = populate();
    expect(() => store.list({ cursor: "garbage" })).toThrow(InvalidCursor);
    expect(() => store.list({ cursor: Buffer.from(JSON.stringify(["x", "y"])).toString("base64url") })).toThrow(InvalidCursor);
  });
});

describe("the approval gate", () => {
  it("an operator's policy takes precedence over the tool's own", async () => {
    const { store, registry, handle } = setup();
    let runs = 0;
    registry.add({ name: "lookup", description: "read", inputSchema: { type: "object" } }, () => ++runs);
    const executor = new Executor({ registry, approvals: new ApprovalGate(store), record: new CallResults(handle.db) });
    expect(await executor.call("lookup", {})).toMatchObject({ ok: true });
    registry.update("lookup", { approval: "always" });
    expect(await executor.call("lookup", {})).toMatchObject({ pending: { approvalId: expect.any(String) } });
    registry.bindHandler("issue_refund", () => ++runs);
    registry.update("issue_refund", { approval: "never" });
    expect(await executor.call("issue_refund", args)).toMatchObject({ ok: true });
    expect(runs).toBe(2);
    expect(store.countPending()).toBe(1);
  });
});

describe("two concurrent decisions", () => {
  it("exactly one wins, the other gets ApprovalAlreadyDecided, and one 'decided' row is written", async () => {
    const { handle } = setup();
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
        const approval = request(store, { callId: `race-${round}` });
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
        const stored = store.get(approval.id)!;
        expect(stored.decidedBy).toBe(winner.decidedBy);
        expect(stored.status).toBe(winner.decidedBy === "worker-0" ? "approved" : "denied");
        expect(losers[0]!.error!.message).toContain(`already ${stored.status}`);
        const decided = store.events(approval.id).filter((e) => e.type === "decided");
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
  it("gives a used approval without an outcome the call record's result, or outcome_unknown; the others are untouched; once only", () => {
    const { handle, store } = setup();
    const approve = (callId: string) => {
      const approval = request(store, { callId });
      store.decide(approval.id, { approved: true, decidedBy: "bob" });
      return store.consume(approval.id, binding(approval));
    };
    const cut = approve("cut");
    const recorded = approve("recorded");
    new CallResults(handle.db).put({ principal: "alice", ...binding(recorded) }, { ok: true, value: { refundId: "rf_9" } }, 5, args);
    const finished = approve("finished");
    store.recordOutcome(finished.id, { ok: true, value: { refundId: "rf_2" } });
    const waiting = request(store, { callId: "waiting" });
    const heard: string[] = [];
    store.onChange((change) => heard.push(`${change.type} ${change.approval.callId}`));

    const settled = store.settleInterrupted();
    expect(settled.map((a) => a.callId).sort()).toEqual(["cut", "recorded"]);
    expect(store.get(cut.id)).toMatchObject({ status: "consumed", ranAt: null, result: { ok: false, error: { kind: "outcome_unknown" } } });
    expect(store.get(recorded.id)).toMatchObject({
      status: "consumed",
      ranAt: expect.any(Number),
      result: { ok: true, value: { refundId: "rf_9" } },
    });
    expect(store.get(finished.id)?.result).toEqual({ ok: true, value: { refundId: "rf_2" } });
    expect(store.get(waiting.id)).toMatchObject({ status: "pending", result: null });
    expect(store.events(cut.id).at(-1)).toMatchObject({
      type: "ran",
      actor: "system",
      data: { ok: false, error: { kind: "outcome_unknown" } },
    });
    expect(heard.sort()).toEqual(["ran cut", "ran recorded"]);
    expect(store.settleInterrupted()).toEqual([]);
  });
});
