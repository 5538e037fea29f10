import { randomUUID } from "node:crypto";
import { isJsonObject, jsonDigest } from "../json/canonical";
import { silentLogger, type Logger } from "../log";
import type { ToolCallInfo, ToolHandler } from "../tools/handler";
import type { ToolRegistry } from "../tools/registry";
import { validateAgainst } from "../tools/schema";
import type { RegisteredTool } from "../tools/spec";
import { allowAll, type ApprovalPort } from "./approval-port";
import type { CallKey, CallRecord } from "./call-record";
import { currentRunContext, newRunContext, type RunContext } from "./context";
import {
  ApprovalPending,
  isRetryable,
  ToolApprovalExpired,
  ToolArgsInvalid,
  ToolCallError,
  ToolCancelled,
  ToolDenied,
  ToolFailed,
  ToolNotFound,
  ToolOutputInvalid,
  ToolTimeout,
} from "./errors";
import { failure, success, type ToolResult } from "./result";

export interface ExecutorOptions {
  registry: ToolRegistry;
  /** Decides calls of tools that ask for approval; without one every call runs. */
  approvals?: ApprovalPort;
  /** The memo of completed calls; without one nothing is recorded or answered from a record. */
  record?: CallRecord;
  /** Backoff between retries: base delay doubled per attempt, capped, with jitter. */
  backoff?: { baseMs: number; maxMs: number };
  logger?: Logger;
  /** Called after every call with its outcome (for run counters and live views). */
  onCall?: (event: CallEvent) => void;
}

export interface CallEvent {
  tool: string;
  callId: string;
  ctx: RunContext;
  result: ToolResult;
  durationMs: number;
  /** True when the result came from the call record, not from running the tool. */
  replayed: boolean;
}

export interface CallOptions {
  /** The caller's id for this call; with the same scope, a repeat is answered from the record. */
  callId?: string;
  /** Overrides the current run context (or, outside any run, a fresh one). */
  ctx?: Partial<RunContext>;
}

export interface ToolCallRequest {
  name: string;
  args: unknown;
  callId?: string;
}

/** Kinds that mean the tool ran to an end: these results are recorded. */
const COMPLETED = new Set(["tool_error", "failed", "timeout", "invalid_output"]);

/**
 * Runs tools: lookup, argument checks, approval, timeout, retries, output checks and the call record.
 * Every outcome is a ToolResult; only programming errors throw.
 */
export class Executor {
  readonly registry: ToolRegistry;
  private readonly approvals: ApprovalPort;
  private readonly record?: CallRecord;
  private readonly backoff: { baseMs: number; maxMs: number };
  private readonly logger: Logger;
  private readonly onCall?: (event: CallEvent) => void;
  private readonly inflight = new Map<string, Promise<ToolResult>>();

  constructor(options: ExecutorOptions) {
    this.registry = options.registry;
    this.approvals = options.approvals ?? allowAll;
    this.record = options.record;
    this.backoff = options.backoff ?? { baseMs: 200, maxMs: 5_000 };
    this.logger = options.logger ?? silentLogger;
    this.onCall = options.onCall;
  }

  /** Run one call. Resolves with the outcome as data; never rejects for a tool's failure. */
  async call(name: string, args: unknown, options: CallOptions = {}): Promise<ToolResult> {
    const ctx = resolveContext(options.ctx);
    const callId = options.callId ?? randomUUID();
    const started = performance.now();
    const tool = this.registry.get(name);
    if (!tool || !tool.enabled) return this.finish(name, callId, ctx, failure(new ToolNotFound(name)), started, false);
    const input = args === undefined || args === null ? {} : args;
    if (!isJsonObject(input)) return this.finish(name, callId, ctx, failure(new ToolArgsInvalid(name, [{ path: "", message: "must be an object" }])), started, false);
    const issues = validateAgainst(tool.inputSchema, input);
    if (issues.length) return this.finish(name, callId, ctx, failure(new ToolArgsInvalid(name, issues)), started, false);

    const key: CallKey = { principal: ctx.principal, scope: ctx.scope, callId, tool: name, argsDigest: jsonDigest(input) };
    const recorded = options.callId ? this.record?.get(key) : undefined;
    if (recorded) return this.finish(name, callId, ctx, recorded, started, true);

    const flightKey = `${key.principal}\u0000${key.scope}\u0000${key.callId}\u0000${key.tool}\u0000${key.argsDigest}`;
    const running = this.inflight.get(flightKey);
    if (running) return running;
    const promise = this.execute(tool, input, key, ctx, started).finally(() => this.inflight.delete(flightKey));
    this.inflight.set(flightKey, promise);
    return promise;
  }

  /**
   * Run several calls concurrently, at most `concurrency` at once; results in call order.
   * `onResult` hears each result as soon as its call ends (to stream it).
   */
  async callMany(
    calls: ToolCallRequest[],
    options: { ctx?: Partial<RunContext>; concurrency?: number; onResult?: (index: number, result: ToolResult) => void } = {},
  ): Promise<ToolResult[]> {
    const ctx = resolveContext(options.ctx);
    const limit = Math.max(1, options.concurrency ?? 4);
    const results = new Array<ToolResult>(calls.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < calls.length) {
        const index = next++;
        const call = calls[index]!;
        const result = await this.call(call.name, call.args, { callId: call.callId, ctx });
        results[index] = result;
        options.onResult?.(index, result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker));
    return results;
  }

  private async execute(tool: RegisteredTool, args: Record<string, unknown>, key: CallKey, ctx: RunContext, started: number): Promise<ToolResult> {
    const verdict = this.approvals.check({ tool, args, argsDigest: key.argsDigest, callId: key.callId, ctx });
    switch (verdict.status) {
      case "pending":
        return this.finish(tool.name, key.callId, ctx, failure(new ApprovalPending(tool.name, verdict.approvalId, verdict.expiresAt)), started, false);
      case "denied":
        return this.finish(tool.name, key.callId, ctx, failure(new ToolDenied(tool.name, verdict.reason)), started, false);
      case "expired":
        return this.finish(tool.name, key.callId, ctx, failure(new ToolApprovalExpired(tool.name)), started, false);
      case "cancelled":
        return this.finish(tool.name, key.callId, ctx, failure(new ToolCancelled(tool.name)), started, false);
    }
    let runArgs = args;
    if (verdict.args) {
      const issues = validateAgainst(tool.inputSchema, verdict.args);
      if (issues.length) return this.finish(tool.name, key.callId, ctx, failure(new ToolArgsInvalid(tool.name, issues)), started, false);
      runArgs = verdict.args;
    }
    const result = await this.run(tool, runArgs, key.callId, ctx);
    const durationMs = performance.now() - started;
    if (result.ok || COMPLETED.has(result.error.kind)) this.record?.put(key, result, durationMs, runArgs);
    if (verdict.approvalId) this.approvals.recordOutcome(verdict.approvalId, result);
    return this.finish(tool.name, key.callId, ctx, result, started, false);
  }

  private async run(tool: RegisteredTool, args: Record<string, unknown>, callId: string, ctx: RunContext): Promise<ToolResult> {
    const handler = this.registry.handlerFor(tool);
    if (!handler) {
      this.logger.error("tool has no handler in this process", { tool: tool.name });
      return failure(new ToolFailed(tool.name, 0));
    }
    const attempts = tool.policy.retries + 1;
    for (let attempt = 1; ; attempt++) {
      if (ctx.signal?.aborted) return failure(new ToolCancelled(tool.name));
      const outcome = await attemptCall(handler, args, { runId: ctx.runId, threadId: ctx.threadId, principal: ctx.principal, callId, toolName: tool.name, attempt }, tool.policy.timeoutMs, ctx.signal);
      if (outcome.ok) {
        const value = outcome.value === undefined ? null : outcome.value;
        if (tool.outputSchema) {
          const issues = validateAgainst(tool.outputSchema, value);
          if (issues.length) {
            this.logger.warn("tool output does not match its schema", { tool: tool.name, callId, issues });
            return failure(new ToolOutputInvalid(tool.name, issues));
          }
        }
        return success(value);
      }
      const error = outcome.error;
      if (error === TIMED_OUT) return failure(new ToolTimeout(tool.name, tool.policy.timeoutMs));
      if (error === CANCELLED) return failure(new ToolCancelled(tool.name));
      if (error instanceof ToolCallError) return failure(error);
      if (isRetryable(error) && attempt < attempts) {
        this.logger.info("retrying tool call", { tool: tool.name, callId, attempt, error: describe(error) });
        if (!(await sleep(this.delayBefore(attempt + 1), ctx.signal))) return failure(new ToolCancelled(tool.name));
        continue;
      }
      this.logger.error("tool call failed", { tool: tool.name, callId, attempt, error });
      return failure(new ToolFailed(tool.name, attempt));
    }
  }

  /** Exponential backoff with full jitter in its upper half: attempt 2 waits about base, 3 about 2×base... */
  private delayBefore(attempt: number): number {
    const ceiling = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** (attempt - 2));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  private finish(tool: string, callId: string, ctx: RunContext, result: ToolResult, started: number, replayed: boolean): ToolResult {
    this.onCall?.({ tool, callId, ctx, result, durationMs: performance.now() - started, replayed });
    return result;
  }
}

const TIMED_OUT = Symbol("timed out");
const CANCELLED = Symbol("cancelled");

type Attempt = { ok: true; value: unknown } | { ok: false; error: unknown };

async function attemptCall(
  handler: ToolHandler,
  args: Record<string, unknown>,
  info: Omit<ToolCallInfo, "signal">,
  timeoutMs: number,
  runSignal: AbortSignal | undefined,
): Promise<Attempt> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onRunAbort: (() => void) | undefined;
  const stop = new Promise<Attempt>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error("timeout"));
      resolve({ ok: false, error: TIMED_OUT });
    }, timeoutMs);
    if (runSignal) {
      onRunAbort = () => {
        controller.abort(runSignal.reason);
        resolve({ ok: false, error: CANCELLED });
      };
      if (runSignal.aborted) onRunAbort();
      else runSignal.addEventListener("abort", onRunAbort, { once: true });
    }
  });
  const work = (async (): Promise<Attempt> => {
    try {
      return { ok: true, value: await handler(structuredClone(args), { ...info, signal: controller.signal }) };
    } catch (error) {
      return { ok: false, error };
    }
  })();
  try {
    return await Promise.race([work, stop]);
  } finally {
    clearTimeout(timer);
    if (onRunAbort) runSignal?.removeEventListener("abort", onRunAbort);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function resolveContext(overrides?: Partial<RunContext>): RunContext {
  const current = currentRunContext();
  if (!overrides) return current ?? newRunContext();
  const base = current ?? newRunContext(overrides);
  const merged = { ...base, ...overrides };
  if (!overrides.scope && overrides.runId && overrides.runId !== base.runId) merged.scope = overrides.runId;
  return merged;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
