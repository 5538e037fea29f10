/** What a running tool knows about its call. */
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
}

/** The function behind a tool. Throw ToolError to fail on purpose; return a JSON value otherwise. */
export type ToolHandler<Args = Record<string, unknown>, Result = unknown> = (args: Args, call: ToolCallInfo) => Result | Promise<Result>;
