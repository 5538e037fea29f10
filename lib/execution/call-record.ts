import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { callResults } from "../db/schema";
import type { ToolResult } from "./result";

const sqlPlaceholder = (name: string) => sql.placeholder(name);

export interface CallKey {
  principal: string;
  scope: string;
  callId: string;
  tool: string;
  argsDigest: string;
}

/**
 * The executor's memo of completed calls, in SQLite: a call retried or replayed with the same key
 * is answered from here and never runs twice.
 */
export class CallRecord {
  private readonly find;
  private readonly insert;

  constructor(db: Db) {
    this.find = db
      .select({ result: callResults.result })
      .from(callResults)
      .where(
        and(
          eq(callResults.principal, sqlPlaceholder("principal")),
          eq(callResults.scope, sqlPlaceholder("scope")),
          eq(callResults.callId, sqlPlaceholder("callId")),
          eq(callResults.tool, sqlPlaceholder("tool")),
          eq(callResults.argsDigest, sqlPlaceholder("argsDigest")),
        ),
      )
      .prepare();
    this.insert = db
      .insert(callResults)
      .values({
        principal: sqlPlaceholder("principal"),
        scope: sqlPlaceholder("scope"),
        callId: sqlPlaceholder("callId"),
        tool: sqlPlaceholder("tool"),
        argsDigest: sqlPlaceholder("argsDigest"),
        args: sqlPlaceholder("args"),
        result: sqlPlaceholder("result"),
        durationMs: sqlPlaceholder("durationMs"),
        createdAt: sqlPlaceholder("now"),
        updatedAt: sqlPlaceholder("now"),
      })
      .onConflictDoNothing()
      .prepare();
  }

  /** The recorded result for this key, or undefined. */
  get(key: CallKey): ToolResult | undefined {
    return this.find.get({ ...key })?.result as ToolResult | undefined;
  }

  /** Record a completed call; a key already recorded keeps its first result. */
  put(key: CallKey, result: ToolResult, durationMs: number, args?: Record<string, unknown>): void {
    // The json column maps the value itself; stringifying here stored it twice encoded, and replays returned a string.
    this.insert.run({ ...key, args: args ?? null, result, durationMs: Math.round(durationMs), now: Date.now() });
  }
}
