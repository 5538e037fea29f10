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
 * The executor's memo of completed calls (lib/db/call-results.ts keeps it in SQLite): a call
 * retried or replayed with the same key is answered from here and never runs twice.
 */
export interface CallRecord {
  /** The recorded result for this key, or undefined. */
  get(key: CallKey): ToolResult | undefined;
  /** Record a completed call; a key already recorded keeps its first result. */
  put(key: CallKey, result: ToolResult, durationMs: number, args?: Record<string, unknown>): void;
}
