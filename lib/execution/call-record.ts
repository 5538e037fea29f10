import type { ToolResult } from "./result";

/** What makes two calls the same call: a repeat with the same key is answered from the record. */
export interface CallKey {
  principal: string;
  scope: string;
  callId: string;
  tool: string;
  argsDigest: string;
}

/**
 * The executor's memo of completed calls (lib/db/call-results.ts keeps it in SQLite,
 * lib/db/postgres/call-results.ts in PostgreSQL): a call retried or replayed with the same key is
 * answered from here and never runs twice. Every method is asynchronous, so that a store over a
 * network database fits behind it.
 */
export interface CallRecord {
  /** The recorded result for this key, or undefined. */
  get(key: CallKey): Promise<ToolResult | undefined>;
  /**
   * Record a completed call. A key already recorded keeps its first result: resolves true when this
   * result is the one kept, false when another was recorded first (read it with `get`).
   */
  put(key: CallKey, result: ToolResult, durationMs: number, args?: Record<string, unknown>): Promise<boolean>;
}
