/** What a running tool knows about its call. */
/**
 * What a running tool may tell the caller that asked for it, when the surface carries it (an MCP
 * client hears progress and log notifications); a no-op where nobody listens.
 */
export interface ToolReporter {
  /** Progress so far, out of `total` when known. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** A log message for the caller. */
  log(level: "debug" | "info" | "notice" | "warning" | "error", data: unknown): Promise<void>;
}

export interface ToolCallInfo {
  runId: string;
  threadId?: string;
  principal: string;
  callId: string;
  toolName: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  /** Aborted when the call times out or its run is cancelled: stop work and release resources. */
  signal: AbortSignal;
  /** Progress and log messages for the caller, when its surface carries them. */
  report?: ToolReporter;
}

/** The function behind a tool. Throw ToolError to fail on purpose; return a JSON value otherwise. */
export type ToolHandler<Args = Record<string, unknown>, Result = unknown> = (args: Args, call: ToolCallInfo) => Result | Promise<Result>;
