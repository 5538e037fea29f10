import { randomUUID } from "node:crypto";
import pLimit from "p-limit";
import pRetry from "p-retry";
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
    const callId = options.callId ?? randomUUID();
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
          const outcome = await this.call(call.name, call.args, { callId: call.callId, ctx });
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
    const verdict = this.approvals.check({ tool, args, argsDigest: key.argsDigest, callId: key.callId, ctx });
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

  /** The handler's answer, after the retries the tool's policy allows for a retryable failure. */
  private async run(tool: RegisteredTool, args: Record<string, unknown>, callId: string, ctx: RunContext): Promise<ToolResult> {
    const handler = this.registry.handlerFor(tool);
    if (!handler) {
      this.logger.error("tool has no handler in this process", { tool: tool.name });
      return failure(new ToolFailed(tool.name, 0));
    }
    let attempts = 0;
    let value: unknown;
    try {
      value = await pRetry(
        (attempt) => {
          attempts = attempt;
          const info = { runId: ctx.runId, threadId: ctx.threadId, principal: ctx.principal, callId, toolName: tool.name, attempt };
          return attemptCall(handler, args, info, tool.policy.timeoutMs, ctx.signal);
        },
        {
          retries: tool.policy.retries,
          factor: 2,
          // randomize multiplies by 1 to 2: the first retry waits between baseMs/2 and baseMs.
          minTimeout: this.backoff.baseMs / 2,
          maxTimeout: this.backoff.maxMs,
          randomize: true,
          signal: ctx.signal,
          shouldRetry: ({ error }) => isRetryable(error),
          onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
            if (retriesLeft > 0 && isRetryable(error))
              this.logger.info("retrying tool call", { tool: tool.name, callId, attempt: attemptNumber, error: describe(error) });
          },
        },
      );
    } catch (error) {
      if (ctx.signal?.aborted) return failure(new ToolCancelled(tool.name));
      if (error instanceof AttemptTimedOut) return failure(new ToolTimeout(tool.name, tool.policy.timeoutMs));
      if (error instanceof ToolCallError) return failure(error);
      this.logger.error("tool call failed", { tool: tool.name, callId, attempt: attempts, error });
      return failure(new ToolFailed(tool.name, attempts));
    }
    if (value === undefined) value = null;
    if (tool.outputSchema) {
      const issues = validateAgainst(tool.outputSchema, value);
      if (issues.length) {
        this.logger.warn("tool output does not match its schema", { tool: tool.name, callId, issues });
        return failure(new ToolOutputInvalid(tool.name, issues));
      }
    }
    return success(value);
  }

  private finish<T extends CallOutcome>(tool: string, callId: string, ctx: RunContext, outcome: T, started: number, replayed: boolean): T {
    this.onCall?.({ tool, callId, ctx, outcome, durationMs: performance.now() - started, replayed });
    return outcome;
  }
}

/** An attempt that outlived the tool's timeout (never retried). */
class AttemptTimedOut extends Error {}

/**
 * One attempt of a handler, cut off at `timeoutMs` or when the run stops. The handler's signal
 * aborts then too; a handler that ignores it is left behind and its answer dropped.
 */
async function attemptCall(
  handler: ToolHandler,
  args: Record<string, unknown>,
  info: Omit<ToolCallInfo, "signal">,
  timeoutMs: number,
  runSignal: AbortSignal | undefined,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = runSignal ? AbortSignal.any([timeout, runSignal]) : timeout;
  signal.throwIfAborted();
  let onAbort: () => void = () => {};
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(runSignal?.aborted ? signal.reason : new AttemptTimedOut());
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([handler(structuredClone(args), { ...info, signal }), stopped]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
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
