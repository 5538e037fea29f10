import type { Statement } from "better-sqlite3";
import type { Db } from "../db";
import type { ToolResult } from "./result";

export interface CallKey {
  principal: string;
  scope: string;
  callId: string;
  tool: string;
  argsDigest: string;
}

/**
 * The executor's memo of completed calls, in SQLite: a call retried or replayed with the same key
 * is answered from here and never runs twice. It sits on every call's path, so it uses two
 * statements compiled once, without the query builder (which cost as much as the insert itself).
 */
export class CallRecord {
  private readonly find: Statement<[string, string, string, string, string], { result: string }>;
  private readonly insert: Statement<[string, string, string, string, string, string | null, string, number, number, number]>;

  constructor(db: Db) {
    this.find = db.$client.prepare(
      "select result from call_results where principal = ? and scope = ? and call_id = ? and tool = ? and args_digest = ?",
    );
    this.insert = db.$client.prepare(
      `insert into call_results (principal, scope, call_id, tool, args_digest, args, result, duration_ms, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
    );
  }

  /** The recorded result for this key, or undefined. */
  get(key: CallKey): ToolResult | undefined {
    const row = this.find.get(key.principal, key.scope, key.callId, key.tool, key.argsDigest);
    return row ? (JSON.parse(row.result) as ToolResult) : undefined;
  }

  /** Record a completed call; a key already recorded keeps its first result. */
  put(key: CallKey, result: ToolResult, durationMs: number, args?: Record<string, unknown>): void {
    const now = Date.now();
    this.insert.run(key.principal, key.scope, key.callId, key.tool, key.argsDigest, args ? JSON.stringify(args) : null, JSON.stringify(result), Math.round(durationMs), now, now);
  }
}
