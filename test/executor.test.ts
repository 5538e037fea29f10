import { afterEach, describe, expect, it } from "vitest";
import { ApprovalGate, ApprovalStore } from "@/lib/approvals";
import type { DatabaseHandle } from "@/lib/db";
import {
  type CallEvent,
  Executor,
  MODEL_VISIBLE_KINDS,
  RetryableError,
  ToolError,
  type CallOutcome,
  withRunContext,
} from "@/lib/execution";
import { type ToolCallInfo, type ToolPolicyInput, ToolRegistry, type ToolSpecInput, validateAgainst } from "@/lib/tools";
import { countRows, freshDatabase } from "./support/database";
import { CallResults } from "@/lib/db/call-results";

const open: DatabaseHandle[] = [];
afterEach(() => {
  for (const handle of open.splice(0)) handle.close();
});

const querySchema = { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false };

function setup() {
  const handle = freshDatabase();
  open.push(handle);
  let clock = Date.now();
  const registry = new ToolRegistry(handle.db);
  const approvals = new ApprovalStore(handle.db, {
    ttlMs: 60_000,
    now: () => clock,
    validateArgs: (name, args) => {
      const tool = registry.get(name);
      return tool ? validateAgainst(tool.inputSchema, args) : "unknown";
    },
  });
  const events: CallEvent[] = [];
  const executor = new Executor({
    registry,
    approvals: new ApprovalGate(approvals, () => clock),
    record: new CallResults(handle.db),
    backoff: { baseMs: 1, maxMs: 5 },
    onCall: (event) => events.push(event),
  });

  /** Register a tool whose handler counts its calls and keeps what it was given. */
  async function tool(
    name: string,
    options: {
      policy?: ToolPolicyInput;
      impl?: (args: Record<string, unknown>, info: ToolCallInfo) => unknown;
    } & Partial<ToolSpecInput> = {},
  ) {
    const { impl, policy, ...rest } = options;
    const calls: Array<{ args: Record<string, unknown>; info: ToolCallInfo }> = [];
    await registry.add({ name, description: `${name} for tests`, inputSchema: querySchema, policy, ...rest }, async (args, info) => {
      calls.push({ args, info });
      return impl ? impl(args, info) : { echo: args.q };
    });
    return calls;
  }

  return { handle, registry, approvals, executor, events, tool, advance: (ms: number) => (clock += ms) };
}

const ctx = { principal: "alice", scope: "thread-1", runId: "run-1", threadId: "thread-1", surface: "agui" as const };

function errorOf(outcome: CallOutcome) {
  if ("pending" in outcome || outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

function pendingOf(outcome: CallOutcome) {
  if (!("pending" in outcome)) throw new Error(`expected a call waiting for approval, got ${JSON.stringify(outcome)}`);
  return outcome.pending;
}

/** "ok", the failure's kind, or "pending". */
const summary = (outcome: CallOutcome) => ("pending" in outcome ? "pending" : outcome.ok ? "ok" : outcome.error.kind);

describe("error kinds", () => {
  it("lists the model-visible kinds in one place", () => {
    expect([...MODEL_VISIBLE_KINDS].sort()).toEqual(
      [
        "approval_expired",
        "cancelled",
        "denied",
        "failed",
        "invalid_arguments",
        "invalid_output",
        "outcome_unknown",
        "timeout",
        "tool_error",
        "tool_not_found",
      ].sort(),
    );
  });

  it("tool_not_found for an unknown name", async () => {
    const { executor } = setup();
    expect(await executor.call("nope", { q: "x" })).toEqual({
      ok: false,
      error: { kind: "tool_not_found", message: 'No tool named "nope" is available' },
    });
    expect(errorOf(await executor.call("__proto__", {})).kind).toBe("tool_not_found");
    expect(errorOf(await executor.call("constructor", {})).kind).toBe("tool_not_found");
  });

  it("tool_not_found for a disabled tool, which does not run", async () => {
    const { executor, registry, tool } = setup();
    const calls = await tool("lookup");
    await registry.setEnabled("lookup", false);
    expect(errorOf(await executor.call("lookup", { q: "x" })).kind).toBe("tool_not_found");
    expect(calls).toHaveLength(0);
    await registry.setEnabled("lookup", true);
    expect(await executor.call("lookup", { q: "x" })).toEqual({ ok: true, value: { echo: "x" } });
    expect(calls).toHaveLength(1);
  });

  it("invalid_arguments with the path of each issue, and the tool does not run", async () => {
    const { executor, tool } = setup();
    const calls = await tool("lookup");
    expect(errorOf(await executor.call("lookup", { q: 5 }))).toMatchObject({
      kind: "invalid_arguments",
      issues: [{ path: "/q", message: "must be string" }],
    });
    expect(errorOf(await executor.call("lookup", {}))).toMatchObject({
      kind: "invalid_arguments",
      issues: [{ path: "/q", message: "is required" }],
    });
    expect(errorOf(await executor.call("lookup", null))).toMatchObject({
      kind: "invalid_arguments",
      issues: [{ path: "/q", message: "is required" }],
    });
    expect(errorOf(await executor.call("lookup", { q: "x", extra: 1 }))).toMatchObject({
      issues: [{ path: "/extra", message: "is not allowed" }],
    });
    expect(errorOf(await executor.call("lookup", [1]))).toMatchObject({
      kind: "invalid_arguments",
      issues: [{ path: "", message: "must be an object" }],
    });
    expect(errorOf(await executor.call("lookup", "q=x"))).toMatchObject({ kind: "invalid_arguments" });
    const both = errorOf(await executor.call("lookup", { extra: true }));
    expect(both.issues?.map((i) => i.path).sort()).toEqual(["/extra", "/q"]);
    expect(both.message).toContain("/q is required");
    expect(calls).toHaveLength(0);
  });

  it("a call that waits for approval is pending (not a failure), with the approval id, and the tool does not run", async () => {
    const { executor, approvals, tool } = setup();
    const calls = await tool("refund", { policy: { confirm: true, effects: "destructive" } });
    const pending = pendingOf(await executor.call("refund", { q: "order-1" }, { callId: "c1", ctx }));
    expect(pending).toEqual({
      approvalId: expect.stringMatching(/^apr_/),
      expiresAt: expect.any(Number),
      message: "refund wants to run with these arguments. Approve?",
    });
    const approval = (await approvals.get(pending.approvalId))!;
    expect(approval).toMatchObject({
      status: "pending",
      tool: "refund",
      callId: "c1",
      scope: "thread-1",
      principal: "alice",
      args: { q: "order-1" },
      expiresAt: pending.expiresAt,
    });
    const again = pendingOf(await executor.call("refund", { q: "order-1" }, { callId: "c1", ctx }));
    expect(again.approvalId).toBe(pending.approvalId);
    expect(await approvals.countPending()).toBe(1);
    expect(calls).toHaveLength(0);
  });

  it("denied with the person's reason, and the tool does not run", async () => {
    const { executor, approvals, tool } = setup();
    const calls = await tool("refund", { policy: { confirm: true } });
    const pending = pendingOf(await executor.call("refund", { q: "order-1" }, { callId: "c1", ctx }));
    await approvals.decide(pending.approvalId, { approved: false, reason: "Too large", decidedBy: "bob" });
    expect(await executor.call("refund", { q: "order-1" }, { callId: "c1", ctx })).toEqual({
      ok: false,
      error: { kind: "denied", message: "The call to refund was denied: Too large", reason: "Too large" },
    });
    expect(calls).toHaveLength(0);
  });

  it("approval_expired when nobody decided in time", async () => {
    const { executor, approvals, tool, advance } = setup();
    const calls = await tool("refund", { policy: { confirm: true } });
    const pending = pendingOf(await executor.call("refund", { q: "order-1" }, { callId: "c1", ctx }));
    advance(60_001);
    expect(errorOf(await executor.call("refund", { q: "order-1" }, { callId: "c1", ctx })).kind).toBe("approval_expired");
    expect((await approvals.get(pending.approvalId))?.status).toBe("expired");
    expect((await approvals.events(pending.approvalId)).map((e) => e.type)).toEqual(["requested", "expired"]);
    expect(calls).toHaveLength(0);
  });

  it("cancelled when the approval was withdrawn", async () => {
    const { executor, approvals, tool } = setup();
    const calls = await tool("refund", { policy: { confirm: true } });
    const pending = pendingOf(await executor.call("refund", { q: "order-1" }, { callId: "c1", ctx }));
    await approvals.cancel(pending.approvalId, "operator");
    expect(errorOf(await executor.call("refund", { q: "order-1" }, { callId: "c1", ctx })).kind).toBe("cancelled");
    expect(calls).toHaveLength(0);
  });

  it("cancelled when the run's signal aborts mid-call; the handler's signal aborts too", async () => {
    const { executor, tool } = setup();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const calls = await tool("slow", {
      impl: (_args, info) =>
        new Promise((resolve) => {
          started();
          info.signal.addEventListener("abort", () => resolve("too late"));
        }),
    });
    const controller = new AbortController();
    const result = executor.call("slow", { q: "x" }, { callId: "c1", ctx: { ...ctx, signal: controller.signal } });
    await running;
    controller.abort(new Error("client went away"));
    expect(errorOf(await result)).toEqual({ kind: "cancelled", message: "The call to slow was cancelled" });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.info.signal.aborted).toBe(true);
  });

  it("a used approval is never a denial: asked again, the call gets its recorded outcome, or outcome_unknown, and does not run", async () => {
    const { executor, approvals, tool } = setup();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const calls = await tool("slow_refund", {
      policy: { confirm: true },
      impl: (_args, info) =>
        new Promise((resolve) => {
          started();
          info.signal.addEventListener("abort", () => resolve("too late"));
        }),
    });
    // Approved, started, then cut by its run's stop: the approval keeps the cancelled outcome.
    const pending = pendingOf(await executor.call("slow_refund", { q: "order-1" }, { callId: "c1", ctx }));
    await approvals.decide(pending.approvalId, { approved: true, decidedBy: "bob" });
    const controller = new AbortController();
    const first = executor.call("slow_refund", { q: "order-1" }, { callId: "c1", ctx: { ...ctx, signal: controller.signal } });
    await running;
    controller.abort(new Error("client went away"));
    expect(errorOf(await first).kind).toBe("cancelled");
    expect(errorOf(await executor.call("slow_refund", { q: "order-1" }, { callId: "c1", ctx })).kind).toBe("cancelled");

    // Approved and consumed, with no outcome recorded (what a crash mid-call leaves).
    const other = pendingOf(await executor.call("slow_refund", { q: "order-2" }, { callId: "c2", ctx }));
    await approvals.decide(other.approvalId, { approved: true, decidedBy: "bob" });
    const approval = (await approvals.get(other.approvalId))!;
    await approvals.consume(approval.id, {
      scope: approval.scope,
      callId: approval.callId,
      tool: approval.tool,
      argsDigest: approval.argsDigest,
    });
    const unknown = errorOf(await executor.call("slow_refund", { q: "order-2" }, { callId: "c2", ctx }));
    expect(unknown.kind).toBe("outcome_unknown");
    expect(unknown.message).toMatch(/may or may not have run/);
    expect(calls).toHaveLength(1);
  });

  it("cancelled without running when the run was aborted before the call", async () => {
    const { executor, tool } = setup();
    const calls = await tool("lookup");
    const controller = new AbortController();
    controller.abort();
    expect(errorOf(await executor.call("lookup", { q: "x" }, { ctx: { signal: controller.signal } })).kind).toBe("cancelled");
    expect(calls).toHaveLength(0);
  });

  it("cancelled while waiting to retry, without another attempt", async () => {
    const { handle, tool, registry } = setup();
    const executor = new Executor({ registry, record: new CallResults(handle.db), backoff: { baseMs: 10_000, maxMs: 10_000 } });
    const controller = new AbortController();
    const calls = await tool("flaky", {
      policy: { retries: 3 },
      impl: () => {
        setTimeout(() => controller.abort(), 5);
        throw new RetryableError("busy");
      },
    });
    const started = performance.now();
    expect(errorOf(await executor.call("flaky", { q: "x" }, { ctx: { signal: controller.signal } })).kind).toBe("cancelled");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(calls).toHaveLength(1);
  });

  it("timeout when the tool does not answer in time; the handler's signal aborts", async () => {
    const { executor, tool } = setup();
    const calls = await tool("stuck", { policy: { timeoutMs: 30 }, impl: () => new Promise(() => {}) });
    const started = performance.now();
    expect(await executor.call("stuck", { q: "x" })).toEqual({
      ok: false,
      error: { kind: "timeout", message: "stuck did not answer within 30 ms" },
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.info.signal.aborted).toBe(true);
  });

  it("a handler that listens to its signal while it runs hears the timeout, and has its own copy of the arguments", async () => {
    const { executor, tool } = setup();
    const heard: unknown[] = [];
    await tool("listening", {
      policy: { timeoutMs: 30 },
      impl: (_args, info) =>
        new Promise(() => info.signal.addEventListener("abort", () => heard.push((info.signal.reason as Error).message), { once: true })),
    });
    expect(errorOf(await executor.call("listening", { q: "x" })).kind).toBe("timeout");
    expect(heard).toEqual(["timeout"]);

    const touched = await tool("touching", { impl: (args) => ((args.q = "changed by the tool"), { ok: 1 }) });
    const args = { q: "as sent" };
    expect(await executor.call("touching", args, { callId: "t1" })).toEqual({ ok: true, value: { ok: 1 } });
    // The tool had its own copy of the arguments.
    expect(args).toEqual({ q: "as sent" });
    expect(touched[0]!.args).toEqual({ q: "changed by the tool" });
  });

  it("tool_error carries the tool's own message and details, and is not retried", async () => {
    const { executor, tool } = setup();
    const calls = await tool("orders", {
      policy: { retries: 3 },
      impl: () => {
        throw new ToolError("Order 12 not found", { orderId: 12 });
      },
    });
    expect(await executor.call("orders", { q: "12" })).toEqual({
      ok: false,
      error: { kind: "tool_error", message: "Order 12 not found", details: { orderId: 12 } },
    });
    expect(calls).toHaveLength(1);
  });

  it("invalid_output when the value breaks the output schema", async () => {
    const { executor, tool } = setup();
    await tool("shaped", {
      outputSchema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
      impl: (args) => (args.q === "good" ? { id: 1 } : { id: "one" }),
    });
    expect(await executor.call("shaped", { q: "good" })).toEqual({ ok: true, value: { id: 1 } });
    expect(errorOf(await executor.call("shaped", { q: "bad" }))).toMatchObject({
      kind: "invalid_output",
      issues: [{ path: "/id", message: "must be integer" }],
    });
  });

  it("an answer may nest as deep as an API response the console accepts (128 levels), not deeper", async () => {
    const { executor, tool } = setup();
    const nested = (depth: number): unknown => {
      let value: unknown = "leaf";
      for (let i = 1; i < depth; i++) value = [value];
      return { id: 1, tree: value };
    };
    await tool("deep", { outputSchema: { type: "object", required: ["id"] }, impl: (args) => nested(Number(args.q)) });
    expect(summary(await executor.call("deep", { q: "100" }))).toBe("ok");
    expect(errorOf(await executor.call("deep", { q: "200" }))).toMatchObject({ kind: "invalid_output" });
  });

  it("a handler returning nothing answers null", async () => {
    const { executor, tool } = setup();
    await tool("void", { impl: () => undefined });
    expect(await executor.call("void", { q: "x" })).toEqual({ ok: true, value: null });
  });
});

describe("retries", async () => {
  it("a RetryableError is tried retries + 1 times, then failed", async () => {
    const { executor, tool } = setup();
    const calls = await tool("flaky", {
      policy: { retries: 2 },
      impl: () => {
        throw new RetryableError("connection reset");
      },
    });
    expect(await executor.call("flaky", { q: "x" })).toEqual({
      ok: false,
      error: { kind: "failed", message: "flaky failed after 3 attempts" },
    });
    expect(calls.map((c) => c.info.attempt)).toEqual([1, 2, 3]);
  });

  it("an error marked retryable: true is retried too", async () => {
    const { executor, tool } = setup();
    const calls = await tool("flaky", {
      policy: { retries: 1 },
      impl: () => {
        throw Object.assign(new Error("503"), { retryable: true });
      },
    });
    expect(errorOf(await executor.call("flaky", { q: "x" })).kind).toBe("failed");
    expect(calls).toHaveLength(2);
  });

  it("succeeds on a later attempt", async () => {
    const { executor, tool } = setup();
    const calls = await tool("flaky", {
      policy: { retries: 5 },
      impl: (_args, info) => {
        if (info.attempt < 3) throw new RetryableError("not yet");
        return { attempt: info.attempt };
      },
    });
    expect(await executor.call("flaky", { q: "x" })).toEqual({ ok: true, value: { attempt: 3 } });
    expect(calls).toHaveLength(3);
  });

  it("a plain error is not retried and its details stay out of the result", async () => {
    const { executor, tool } = setup();
    const calls = await tool("broken", {
      policy: { retries: 4 },
      impl: () => {
        throw new Error("SQLITE_CORRUPT at /secret/path");
      },
    });
    expect(await executor.call("broken", { q: "x" })).toEqual({ ok: false, error: { kind: "failed", message: "broken failed" } });
    expect(calls).toHaveLength(1);
  });

  it("a retryable error without retries configured runs once", async () => {
    const { executor, tool } = setup();
    const calls = await tool("flaky", {
      impl: () => {
        throw new RetryableError("x");
      },
    });
    expect(errorOf(await executor.call("flaky", { q: "x" })).kind).toBe("failed");
    expect(calls).toHaveLength(1);
  });

  it("an operator's retries setting applies", async () => {
    const { executor, tool, registry } = setup();
    const calls = await tool("flaky", {
      impl: () => {
        throw new RetryableError("x");
      },
    });
    await registry.update("flaky", { retries: 3 });
    await executor.call("flaky", { q: "x" });
    expect(calls).toHaveLength(4);
  });
});

describe("the call record", () => {
  it("answers a batch retried after an approval without running any call twice", async () => {
    const { executor, approvals, tool, handle, events } = setup();
    const refunds = await tool("refund", {
      policy: { confirm: true, effects: "destructive" },
      impl: () => ({ refundId: `rf_${Math.random()}` }),
    });
    const lookups = await tool("lookup");
    const tickets = await tool("ticket", { policy: { effects: "write" }, impl: () => ({ ticketId: `tk_${Math.random()}` }) });
    const batch = [
      { name: "lookup", args: { q: "order-1" }, callId: "c1" },
      { name: "refund", args: { q: "order-1" }, callId: "c2" },
      { name: "ticket", args: { q: "refund order-1" }, callId: "c3" },
    ];

    const first = await executor.callMany(batch, { ctx });
    expect(first.map(summary)).toEqual(["ok", "pending", "ok"]);
    expect([lookups.length, refunds.length, tickets.length]).toEqual([1, 0, 1]);
    expect(countRows(handle, "call_results")).toBe(2);

    await approvals.decide(pendingOf(first[1]!).approvalId, { approved: true, decidedBy: "bob" });
    const second = await executor.callMany(batch, { ctx });
    expect(second.map(summary)).toEqual(["ok", "ok", "ok"]);
    expect(second[0]).toEqual(first[0]);
    expect(second[2]).toEqual(first[2]);
    expect([lookups.length, refunds.length, tickets.length]).toEqual([1, 1, 1]);
    expect(countRows(handle, "call_results")).toBe(3);

    const third = await executor.callMany(batch, { ctx });
    expect(third).toEqual(second);
    expect([lookups.length, refunds.length, tickets.length]).toEqual([1, 1, 1]);
    expect(events.slice(-3).every((e) => e.replayed)).toBe(true);
    expect(await approvals.get(pendingOf(first[1]!).approvalId)).toMatchObject({ status: "consumed", result: second[1] });
  });

  it("keys the record by principal, scope, call id, tool and arguments", async () => {
    const { executor, tool } = setup();
    const calls = await tool("ticket", { policy: { effects: "write" }, impl: () => ({ n: calls.length }) });
    const first = await executor.call("ticket", { q: "a" }, { callId: "c1", ctx });
    expect(await executor.call("ticket", { q: "a" }, { callId: "c1", ctx })).toEqual(first);
    expect(calls).toHaveLength(1);
    await executor.call("ticket", { q: "a" }, { callId: "c1", ctx: { ...ctx, principal: "mallory" } });
    await executor.call("ticket", { q: "a" }, { callId: "c1", ctx: { ...ctx, scope: "thread-2" } });
    await executor.call("ticket", { q: "a" }, { callId: "c2", ctx });
    await executor.call("ticket", { q: "b" }, { callId: "c1", ctx });
    expect(calls).toHaveLength(5);
  });

  it("survives a new executor on the same database", async () => {
    const { executor, tool, registry, handle } = setup();
    const calls = await tool("ticket", { policy: { effects: "write" }, impl: () => ({ id: "first" }) });
    await executor.call("ticket", { q: "a" }, { callId: "c1", ctx });
    const restarted = new Executor({ registry, record: new CallResults(handle.db) });
    expect(await restarted.call("ticket", { q: "a" }, { callId: "c1", ctx })).toEqual({ ok: true, value: { id: "first" } });
    expect(calls).toHaveLength(1);
  });

  it("records tool failures but not calls that did not run to an end", async () => {
    const { executor, tool, handle } = setup();
    const failing = await tool("failing", {
      impl: () => {
        throw new ToolError("no");
      },
    });
    await executor.call("failing", { q: "a" }, { callId: "c1", ctx });
    await executor.call("failing", { q: "a" }, { callId: "c1", ctx });
    expect(failing).toHaveLength(1);

    const controller = new AbortController();
    controller.abort();
    const lookups = await tool("lookup");
    await executor.call("lookup", { q: "a" }, { callId: "c2", ctx: { ...ctx, signal: controller.signal } });
    await executor.call("lookup", { q: 1 }, { callId: "c2", ctx });
    expect(await executor.call("lookup", { q: "a" }, { callId: "c2", ctx })).toEqual({ ok: true, value: { echo: "a" } });
    expect(lookups).toHaveLength(1);
    expect(countRows(handle, "call_results")).toBe(2);
  });

  it("calls without a call id are never answered from the record", async () => {
    const { executor, tool } = setup();
    const calls = await tool("lookup");
    await executor.call("lookup", { q: "a" }, { ctx });
    await executor.call("lookup", { q: "a" }, { ctx });
    expect(calls).toHaveLength(2);
  });

  it("a call id the caller just made up (fresh) is not read from the record, and is recorded for later repeats", async () => {
    const { tool, registry, handle } = setup();
    const calls = await tool("ticket", { policy: { effects: "write" }, impl: () => ({ n: calls.length }) });
    let reads = 0;
    const record = new (class extends CallResults {
      override get(...args: Parameters<CallResults["get"]>) {
        reads++;
        return super.get(...args);
      }
    })(handle.db);
    const executor = new Executor({ registry, record });
    const first = await executor.call("ticket", { q: "a" }, { callId: "made-up", fresh: true, ctx });
    expect(reads).toBe(0);
    expect(await executor.call("ticket", { q: "a" }, { callId: "made-up", ctx })).toEqual(first);
    expect(reads).toBe(1);
    expect(calls).toHaveLength(1);
  });

  it("a repeat that arrives while the record is being read joins the first call, even if the first finishes before the read answers", async () => {
    const { tool, registry, handle } = setup();
    const calls = await tool("ticket", { policy: { effects: "write" }, impl: () => ({ n: calls.length }) });
    // The second read of the record is slow (a network database): it answers only once the first
    // call has run, recorded its result and ended.
    let reads = 0;
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const record = new (class extends CallResults {
      override async get(...args: Parameters<CallResults["get"]>) {
        const found = await super.get(...args);
        if (++reads === 2) await slow;
        return found;
      }
    })(handle.db);
    const executor = new Executor({ registry, record });
    const first = executor.call("ticket", { q: "a" }, { callId: "c1", ctx });
    const repeat = executor.call("ticket", { q: "a" }, { callId: "c1", ctx });
    expect(await first).toEqual({ ok: true, value: { n: 1 } });
    release();
    expect(await repeat).toEqual({ ok: true, value: { n: 1 } });
    expect(calls).toHaveLength(1);
  });

  it("concurrent identical calls run once", async () => {
    const { executor, tool } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const calls = await tool("ticket", { policy: { effects: "write" }, impl: async () => (await gate, { id: Math.random() }) });
    const pending = Array.from({ length: 5 }, () => executor.call("ticket", { q: "a" }, { callId: "c1", ctx }));
    const other = executor.call("ticket", { q: "a" }, { callId: "c2", ctx });
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    const results = await Promise.all(pending);
    expect(calls).toHaveLength(2);
    for (const result of results) expect(result).toEqual(results[0]);
    expect(await other).not.toEqual(results[0]);
  });
});

describe("callMany", () => {
  async function peak(concurrency: number | undefined, count: number) {
    const { executor, tool } = setup();
    let running = 0;
    let max = 0;
    const calls = await tool("slow", {
      impl: async (args) => {
        running++;
        max = Math.max(max, running);
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 10));
        running--;
        return { q: args.q };
      },
    });
    const results = await executor.callMany(
      Array.from({ length: count }, (_, i) => ({ name: "slow", args: { q: String(i) } })),
      { ctx, ...(concurrency !== undefined && { concurrency }) },
    );
    expect(results).toEqual(Array.from({ length: count }, (_, i) => ({ ok: true, value: { q: String(i) } })));
    expect(calls).toHaveLength(count);
    return max;
  }

  it("runs at most `concurrency` calls at once, and uses the limit", async () => {
    expect(await peak(3, 12)).toBe(3);
    expect(await peak(1, 4)).toBe(1);
    expect(await peak(10, 4)).toBe(4);
  });

  it("runs 4 at once by default", async () => {
    expect(await peak(undefined, 10)).toBe(4);
  });

  it("returns results in call order, failures as data", async () => {
    const { executor, tool } = setup();
    await tool("lookup");
    const results = await executor.callMany([
      { name: "lookup", args: { q: "a" } },
      { name: "missing", args: {} },
      { name: "lookup", args: { q: 2 } },
      { name: "lookup", args: { q: "d" } },
    ]);
    expect(results.map((r) => ("pending" in r ? "pending" : r.ok ? r.value : r.error.kind))).toEqual([
      { echo: "a" },
      "tool_not_found",
      "invalid_arguments",
      { echo: "d" },
    ]);
    expect(await executor.callMany([])).toEqual([]);
  });
});

describe("the run context", () => {
  it("reaches the handler's call info through AsyncLocalStorage", async () => {
    const { executor, tool, approvals } = setup();
    const calls = await tool("lookup");
    const confirm = await tool("refund", { policy: { confirm: true } });
    const run = { runId: "run-9", threadId: "thread-9", principal: "token:ci", scope: "thread-9", surface: "mcp" as const };
    const [result, pending] = await withRunContext(run, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return Promise.all([executor.call("lookup", { q: "x" }, { callId: "c9" }), executor.call("refund", { q: "x" }, { callId: "c10" })]);
    });
    expect(summary(result!)).toBe("ok");
    expect(calls[0]!.info).toMatchObject({
      runId: "run-9",
      threadId: "thread-9",
      principal: "token:ci",
      callId: "c9",
      toolName: "lookup",
      attempt: 1,
    });
    expect(await approvals.get(pendingOf(pending!).approvalId)).toMatchObject({
      runId: "run-9",
      threadId: "thread-9",
      principal: "token:ci",
      scope: "thread-9",
      surface: "mcp",
      callId: "c10",
    });
    expect(confirm).toHaveLength(0);
  });

  it("explicit ctx overrides the current one; a new run id is its own scope", async () => {
    const { executor, tool, events } = setup();
    const calls = await tool("lookup");
    await withRunContext({ ...ctx }, () => executor.call("lookup", { q: "x" }, { ctx: { runId: "run-2" } }));
    expect(calls[0]!.info).toMatchObject({ runId: "run-2", principal: "alice" });
    expect(events[0]!.ctx).toMatchObject({ runId: "run-2", scope: "run-2", principal: "alice" });
  });

  it("outside any run, a call gets fresh ids and the local principal", async () => {
    const { executor, tool } = setup();
    const calls = await tool("lookup");
    await executor.call("lookup", { q: "x" });
    await executor.call("lookup", { q: "x" });
    expect(calls[0]!.info.principal).toBe("local");
    expect(calls[0]!.info.runId).not.toBe(calls[1]!.info.runId);
    expect(calls[0]!.info.callId).not.toBe(calls[1]!.info.callId);
  });
});

describe("edited arguments", () => {
  it("the handler receives the arguments a person edited", async () => {
    const { executor, approvals, tool } = setup();
    const calls = await tool("refund", { policy: { confirm: true } });
    const pending = pendingOf(await executor.call("refund", { q: "500" }, { callId: "c1", ctx }));
    await approvals.decide(pending.approvalId, { approved: true, editedArgs: { q: "50" }, decidedBy: "bob" });
    expect(await executor.call("refund", { q: "500" }, { callId: "c1", ctx })).toEqual({ ok: true, value: { echo: "50" } });
    expect(calls.map((c) => c.args)).toEqual([{ q: "50" }]);
    expect(await executor.call("refund", { q: "500" }, { callId: "c1", ctx })).toEqual({ ok: true, value: { echo: "50" } });
    expect(calls).toHaveLength(1);
  });

  it("edited arguments the tool's current schema refuses do not run", async () => {
    const { executor, approvals, tool, registry } = setup();
    await tool("refund", { policy: { confirm: true } });
    const pending = pendingOf(await executor.call("refund", { q: "" }, { callId: "c1", ctx }));
    await approvals.decide(pending.approvalId, { approved: true, editedArgs: { q: "far too long" }, decidedBy: "bob" });
    // The tool is re-imported with a stricter schema between the decision and the run.
    await registry.remove("refund");
    const calls = await tool("refund", {
      policy: { confirm: true },
      inputSchema: { ...querySchema, properties: { q: { type: "string", maxLength: 3 } } },
    });
    expect(errorOf(await executor.call("refund", { q: "" }, { callId: "c1", ctx }))).toMatchObject({
      kind: "invalid_arguments",
      issues: [{ path: "/q", message: "must NOT have more than 3 characters" }],
    });
    expect(calls).toHaveLength(0);
  });
});
