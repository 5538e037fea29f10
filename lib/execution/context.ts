import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { ToolReporter } from "../tools/handler";

/** The surfaces a call can arrive through; recorded on approvals and runs. */
export type Surface = "agui" | "mcp" | "a2a" | "rest" | "console" | "openai" | "anthropic" | "gemini" | "langchain" | "script";

/** Who runs calls, and in which run: every call and approval is scoped by it. */
export interface RunContext {
  runId: string;
  threadId?: string;
  /** The authenticated caller (e.g. "local", "token:ci-bot"); approvals and records are bound to it. */
  principal: string;
  /**
   * The scope call ids are unique in. Calls retried or resumed in the same scope with the same call
   * id are answered from the call record. Defaults to the run id.
   */
  scope: string;
  surface: Surface;
  /** Aborted when the run stops: running tools are cancelled. */
  signal?: AbortSignal;
  /** Where a running tool's progress and log messages go (an MCP request's notifications). */
  report?: ToolReporter;
}

const storage = new AsyncLocalStorage<RunContext>();

/** The run context of the code running now, if any. */
export function currentRunContext(): RunContext | undefined {
  return storage.getStore();
}

/** Run `fn` with `ctx` as the current run context (visible to executor.call without passing it). */
export function withRunContext<T>(ctx: RunContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** A run context with fresh ids, for calls made outside any run. */
export function newRunContext(overrides: Partial<RunContext> = {}): RunContext {
  const runId = overrides.runId ?? randomUUID();
  return { runId, principal: "local", scope: overrides.scope ?? runId, surface: "script", ...overrides };
}
