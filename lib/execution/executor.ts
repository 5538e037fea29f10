import { setTimeout as sleep } from "node:timers/promises";
import pLimit from "p-limit";
import { isJsonObject, jsonDigest } from "../json/canonical";
import { copyPlain } from "../json/copy";
import { silentLogger, type Logger } from "../log";
import type { ToolCallInfo, ToolHandler } from "../tools/handler";
import type { ToolRegistry } from "../tools/registry";
import { MAX_DOCUMENT_DEPTH } from "../json/depth";
import { validateAgainst } from "../tools/schema";
import type { RegisteredTool } from "../tools/spec";
import { allowAll, type ApprovalPort } from "./approval-port";
import { newCallId } from "./call-id";
import type { CallKey, CallRecord } from "./call-record";
import { currentRunContext, newRunContext, type RunContext } from "./context";
import {
  isRetryable,
  ToolApprovalExpired,
  ToolArgsInvalid,
  ToolCallError,
  ToolCancelled,
  ToolDenied,
  ToolFailed,
  ToolNotFound,
  ToolOutcomeUnknown,
  ToolOutputInvalid,
  ToolTimeout,
} from "./errors";
import { failure, pendingCall, success, type CallOutcome, type ToolResult } from "./result";

export interface ExecutorOptions {
  registry: ToolRegistry;
  /** Decides calls of tools that ask for approval; without one every call runs. */
  approvals?: ApprovalPort;
  /** The memo of completed calls; without one nothing is recorded or answered from a record. */
  record?: CallRecord;
  /** Backoff between retries: about `baseMs` before the first retry, doubled per attempt up to `maxMs`, with jitter. */
  backoff?: { baseMs: number; maxMs: number };
  logger?: Logger;
  /** Called after every call with its outcome (for run counters and live views). */
  onCall?: (event: CallEvent) => void;
}

export interface CallEvent {
  tool: string;
  callId: string;
  ctx: RunContext;
  outcome: CallOutcome;
  durationMs: number;
  /** True when the result came from the call record, not from running the tool. */
  replayed: boolean;
}

export interface CallOptions {
  /** The caller's id for this call; with the same scope, a repeat is answered from the record. */
  callId?: string;
  /**
   * The caller made `callId` up just now, so no record can hold it and no repeat of it is running:
   * the record is not read, and the call is not listed for repeats to join. A call without a
   * `callId` is fresh too.
   */
  fresh?: boolean;
  /** Overrides the current run context (or, outside any run, a fresh one). */
  ctx?: Partial<RunContext>;
}

export interface ToolCallRequest {
  name: string;
  args: unknown;
  callId?: string;
  /** As CallOptions.fresh: the caller made `callId` up just now. */
  fresh?: boolean;
}

/** Kinds that mean the tool ran to an end: these results are recorded. */
const COMPLETED = new Set(["tool_error", "failed", "timeout", "invalid_output"]);

/**
 * Runs tools: lookup, argument checks, approval, timeout, retries, output checks and the call record.
 * Every outcome is data (a ToolResult, or a PendingCall while a person decides); only programming
 * errors throw.
 */
export class Executor {
  readonly registry: ToolRegistry;
  private readonly approvals: ApprovalPort;
  private readonly record?: CallRecord;
  private readonly backoff: { baseMs: number; maxMs: number };
  private readonly logger: Logger;
  private readonly onCall?: (event: CallEvent) => void;
  private readonly inflight = new Map<string, Promise<CallOutcome>>();

  constructor(options: ExecutorOptions) {
    this.registry = options.registry;
    this.approvals = options.approvals ?? allowAll;
    this.record = options.record;
    this.backoff = options.backoff ?? { baseMs: 200, maxMs: 5_000 };
    this.logger = options.logger ?? silentLogger;
    this.onCall = options.onCall;
  }

  /** Run one call. Resolves with the outcome as data; never rejects for a tool's failure. */
  async call(name: string, args: unknown, options: CallOptions = {}): Promise<CallOutcome> {
    const ctx = resolveContext(options.ctx);
    const callId = options.callId ?? newCallId();
    const started = performance.now();
    const tool = this.registry.get(name);
    if (!tool || !tool.enabled) return this.finish(name, callId, ctx, failure(new ToolNotFound(name)), started, false);
    const input = args === undefined || args === null ? {} : args;
    if (!isJsonObject(input))
      return this.finish(
        name,
        callId,
        ctx,
        failure(new ToolArgsInvalid(name, [{ path: "", message: "must be an object" }])),
        started,
        false,
      );
    const issues = validateAgainst(tool.inputSchema, input);
    if (issues.length) return this.finish(name, callId, ctx, failure(new ToolArgsInvalid(name, issues)), started, false);

    const key: CallKey = { principal: ctx.principal, scope: ctx.scope, callId, tool: name, argsDigest: jsonDigest(input) };
    // A call id made here, or one its caller made just now, has no record to read and no repeat to
    // join (most calls: an agent's, an MCP client's without a key).
    if (options.callId === undefined || options.fresh) return this.execute(tool, input, key, ctx, started);
    // A repeat of a call this executor is still working on joins it. The entry is made before the
    // record is read: the read waits (on PostgreSQL, for the network), and a repeat arriving in the
    // meantime must not run the tool beside the first.
    const flightKey = `${key.principal}\u0000${key.scope}\u0000${key.callId}\u0000${key.tool}\u0000${key.argsDigest}`;
    const running = this.inflight.get(flightKey);
    if (running) return running;
    const promise = (
      this.record ? this.replayOrExecute(tool, input, key, ctx, started) : this.execute(tool, input, key, ctx, started)
    ).finally(() => this.inflight.delete(flightKey));
    this.inflight.set(flightKey, promise);
    return promise;
  }

  /** The recorded result of this call when there is one, else run it. */
  private async replayOrExecute(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    key: CallKey,
    ctx: RunContext,
    started: number,
  ): Promise<CallOutcome> {
    const recorded = await this.record?.get(key);
    if (recorded) return this.finish(tool.name, key.callId, ctx, recorded, started, true);
    return this.execute(tool, args, key, ctx, started);
  }

  /**
   * Run several calls concurrently, at most `concurrency` at once; outcomes in call order.
   * `onResult` hears each outcome as soon as its call ends (to stream it).
   */
  async callMany(
    calls: ToolCallRequest[],
    options: { ctx?: Partial<RunContext>; concurrency?: number; onResult?: (index: number, outcome: CallOutcome) => void } = {},
  ): Promise<CallOutcome[]> {
    const ctx = resolveContext(options.ctx);
    const limit = pLimit(Math.max(1, options.concurrency ?? 4));
    return Promise.all(
      calls.map((call, index) =>
        limit(async () => {
          const outcome = await this.call(call.name, call.args, { callId: call.callId, fresh: call.fresh, ctx });
          options.onResult?.(index, outcome);
          return outcome;
        }),
      ),
    );
  }

  private async execute(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    key: CallKey,
    ctx: RunContext,
    started: number,
  ): Promise<CallOutcome> {
    const verdict = await this.approvals.check({ tool, args, argsDigest: key.argsDigest, callId: key.callId, ctx });
    switch (verdict.status) {
      case "pending":
        return this.finish(
          tool.name,
          key.callId,
          ctx,
          pendingCall({ approvalId: verdict.approvalId, expiresAt: verdict.expiresAt, message: verdict.message }),
          started,
          false,
        );
      case "denied":
        return this.finish(tool.name, key.callId, ctx, failure(new ToolDenied(tool.name, verdict.reason)), started, false);
      case "expired":
        return this.finish(tool.name, key.callId, ctx, failure(new ToolApprovalExpired(tool.name)), started, false);
      case "cancelled":
        return this.finish(tool.name, key.callId, ctx, failure(new ToolCancelled(tool.name)), started, false);
      case "used":
        return this.finish(
          tool.name,
          key.callId,
          ctx,
          asToolResult(verdict.result) ?? failure(new ToolOutcomeUnknown(tool.name)),
          started,
          true,
        );
    }
    let runArgs = args;
    if (verdict.args) {
      const issues = validateAgainst(tool.inputSchema, verdict.args);
      if (issues.length) {
        // The approval is used up, and the call did not run: its record must say so (not "unknown").
        const refused = failure(new ToolArgsInvalid(tool.name, issues));
        if (verdict.approvalId) await this.approvals.recordOutcome(verdict.approvalId, refused);
        return this.finish(tool.name, key.callId, ctx, refused, started, false);
      }
      runArgs = verdict.args;
    }
    let result = await this.run(tool, runArgs, key.callId, ctx);
    const durationMs = performance.now() - started;
    let replayed = false;
    if (this.record && (result.ok || COMPLETED.has(result.error.kind))) {
      const kept = await this.record.put(key, result, durationMs, runArgs);
      if (!kept) {
        // Another instance sharing the database ran the same call at the same time and recorded
        // its result first. Answer with that one, so that every caller of this call, on every
        // instance, hears the same result (the one a retry will be answered with).
        const first = await this.record.get(key);
        if (first) {
          result = first;
          replayed = true;
        }
      }
    }
    if (verdict.approvalId) await this.approvals.recordOutcome(verdict.approvalId, result);
    return this.finish(tool.name, key.callId, ctx, result, started, replayed);
  }

  /** The handler's answer, after the retries the tool's policy allows for a retryable failure. */
  private async run(tool: RegisteredTool, args: Record<string, unknown>, callId: string, ctx: RunContext): Promise<ToolResult> {
    const handler = this.registry.handlerFor(tool);
    if (!handler) {
      this.logger.error("tool has no handler in this process", { tool: tool.name });
      return failure(new ToolFailed(tool.name, 0));
    }
    // Our own loop rather than p-retry: p-retry measured 20 µs a call here, more than the rest of the executor.
    const attempts = tool.policy.retries + 1;
    for (let attempt = 1; ; attempt++) {
      if (ctx.signal?.aborted) return failure(new ToolCancelled(tool.name));
      const info = {
        runId: ctx.runId,
        threadId: ctx.threadId,
        principal: ctx.principal,
        callId,
        toolName: tool.name,
        attempt,
        ...(ctx.report && { report: ctx.report }),
      };
      const outcome = await attemptCall(handler, args, info, tool.policy.timeoutMs, ctx.signal);
      if (outcome.ok) return this.checkOutput(tool, callId, outcome.value === undefined ? null : outcome.value);
      const { error } = outcome;
      if (error === TIMED_OUT) return failure(new ToolTimeout(tool.name, tool.policy.timeoutMs));
      if (error === CANCELLED) return failure(new ToolCancelled(tool.name));
      if (error instanceof ToolCallError) return failure(error);
      if (isRetryable(error) && attempt < attempts) {
        this.logger.info("retrying tool call", { tool: tool.name, callId, attempt, error: describe(error) });
        const waited = await sleep(this.delayBefore(attempt + 1), undefined, { signal: ctx.signal }).then(
          () => true,
          () => false,
        );
        if (!waited) return failure(new ToolCancelled(tool.name));
        continue;
      }
      this.logger.error("tool call failed", { tool: tool.name, callId, attempt, error });
      return failure(new ToolFailed(tool.name, attempt));
    }
  }

  private checkOutput(tool: RegisteredTool, callId: string, value: unknown): ToolResult {
    if (tool.outputSchema) {
      // An answer may nest as deep as the API responses the console reads (their limit, not the arguments').
      const issues = validateAgainst(tool.outputSchema, value, MAX_DOCUMENT_DEPTH);
      if (issues.length) {
        this.logger.warn("tool output does not match its schema", { tool: tool.name, callId, issues });
        return failure(new ToolOutputInvalid(tool.name, issues));
      }
    }
    return success(value);
  }

  /** Exponential backoff with jitter in its upper half: attempt 2 waits about base, 3 about 2×base... */
  private delayBefore(attempt: number): number {
    const ceiling = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** (attempt - 2));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  private finish<T extends CallOutcome>(tool: string, callId: string, ctx: RunContext, outcome: T, started: number, replayed: boolean): T {
    this.onCall?.({ tool, callId, ctx, outcome, durationMs: performance.now() - started, replayed });
    return outcome;
  }
}

const TIMED_OUT = Symbol("timed out");
const CANCELLED = Symbol("cancelled");

type Attempt = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * One attempt of a handler, cut off at `timeoutMs` or when the run stops; the handler's signal
 * aborts then too, and a handler that ignores it is left behind with its answer dropped. Our own
 * timer rather than AbortSignal.timeout and AbortSignal.any: those cannot be cleared (a timer
 * lingers for the whole timeout after every call) and measured twice this executor's cost here.
 * The handler's AbortController is made when it first reads its signal (aborted at once if the
 * attempt was stopped before): most handlers never do, and making one cost a sixth of a no-op
 * call's time in the executor. It gets a copy of the arguments, so that what it does to them never
 * reaches the call's record. A handler that answers without a promise is done there and then: no
 * timer is set and nothing races it (nothing could have cut it off while it ran).
 */
async function attemptCall(
  handler: ToolHandler,
  args: Record<string, unknown>,
  info: Omit<ToolCallInfo, "signal">,
  timeoutMs: number,
  runSignal: AbortSignal | undefined,
): Promise<Attempt> {
  let controller: AbortController | undefined;
  let stopped: { reason: unknown } | undefined;
  const abort = (reason: unknown) => {
    stopped ??= { reason };
    controller?.abort(reason);
  };
  const signalOf = (): AbortSignal => {
    if (!controller) {
      controller = new AbortController();
      if (stopped) controller.abort(stopped.reason);
    }
    return controller.signal;
  };
  const callInfo: ToolCallInfo = {
    ...info,
    get signal() {
      return signalOf();
    },
  };
  let answer: unknown;
  try {
    answer = handler(copyPlain(args), callInfo);
    // An answer given at once could not have been cut off: no timer, no race.
    if (!isPromiseLike(answer)) return { ok: true, value: answer };
  } catch (error) {
    return { ok: false, error };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onRunAbort: (() => void) | undefined;
  const stop = new Promise<Attempt>((resolve) => {
    timer = setTimeout(() => {
      abort(new Error("timeout"));
      resolve({ ok: false, error: TIMED_OUT });
    }, timeoutMs);
    if (runSignal) {
      onRunAbort = () => {
        abort(runSignal.reason);
        resolve({ ok: false, error: CANCELLED });
      };
      if (runSignal.aborted) onRunAbort();
      else runSignal.addEventListener("abort", onRunAbort, { once: true });
    }
  });
  const work = Promise.resolve(answer).then(
    (value): Attempt => ({ ok: true, value }),
    (error: unknown): Attempt => ({ ok: false, error }),
  );
  try {
    return await Promise.race([work, stop]);
  } finally {
    clearTimeout(timer);
    if (onRunAbort) runSignal?.removeEventListener("abort", onRunAbort);
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

function resolveContext(overrides?: Partial<RunContext>): RunContext {
  const current = currentRunContext();
  if (!overrides) return current ?? newRunContext();
  const base = current ?? newRunContext(overrides);
  const merged = { ...base, ...overrides };
  if (!overrides.scope && overrides.runId && overrides.runId !== base.runId) merged.scope = overrides.runId;
  return merged;
}

/** A recorded outcome read back as a ToolResult, or undefined when it is not one. */
function asToolResult(recorded: unknown): ToolResult | undefined {
  if (!isJsonObject(recorded)) return undefined;
  if (recorded.ok === true && "value" in recorded) return { ok: true, value: recorded.value };
  const error = recorded.error;
  if (recorded.ok === false && isJsonObject(error) && typeof error.kind === "string" && typeof error.message === "string")
    return recorded as unknown as ToolResult;
  return undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
