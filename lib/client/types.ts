import type { BaseEvent, RunAgentInput } from "@ag-ui/core";

/** Options for one run: aborting the signal stops the run and releases what it holds. */
export interface StreamOptions {
  signal?: AbortSignal;
}

/**
 * The agent side of AG-UI: yields events from RUN_STARTED to exactly one RUN_FINISHED or
 * RUN_ERROR, stops when the signal aborts, releases resources in `finally`, and reports
 * human-in-the-loop pauses as standard interrupts (honouring `input.resume` on the next run).
 * Any object with a matching `run` is an AGUIAgent.
 */
export interface AGUIAgent {
  run(input: RunAgentInput, options?: StreamOptions): AsyncIterable<BaseEvent>;
}

/**
 * The consumer side: yields validated events, skips invalid ones with a log line, throws
 * AgentHTTPError or AgentStreamError on transport failures (never a synthetic RUN_ERROR),
 * and closes its upstream within a second of being cancelled. `aclose()` is idempotent.
 */
export interface AgentClient {
  stream(input: RunAgentInput, options?: StreamOptions): AsyncIterable<BaseEvent>;
  aclose(): Promise<void>;
}
