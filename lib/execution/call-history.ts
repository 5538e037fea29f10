import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { callResults } from "../db/schema";
import type { ToolResult } from "./result";

/** A completed call of a tool as its history lists it. */
export interface PastCall {
  callId: string;
  principal: string;
  /** The scope the call id was unique in: "console:try" for the console's Try it, a run id for agent calls. */
  scope: string;
  args: Record<string, unknown> | null;
  result: ToolResult;
  durationMs: number;
  pinned: boolean;
  createdAt: number;
}

export interface PastCallFilter {
  /** Only calls made by this principal (everyone's when absent). */
  principal?: string;
  /** 1 to 200, default 50. */
  limit?: number;
}

/** The recorded calls of each tool (from the call record), to list, pin and run again. */
export class CallHistory {
  constructor(private readonly db: Db) {}

  /** Recent calls of `tool`: pinned ones first, then newest first. */
  recent(tool: string, filter: PastCallFilter = {}): PastCall[] {
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
    const where = [eq(callResults.tool, tool)];
    if (filter.principal !== undefined) where.push(eq(callResults.principal, filter.principal));
    return this.db
      .select({
        callId: callResults.callId,
        principal: callResults.principal,
        scope: callResults.scope,
        args: callResults.args,
        result: callResults.result,
        durationMs: callResults.durationMs,
        pinned: callResults.pinned,
        createdAt: callResults.createdAt,
      })
      .from(callResults)
      .where(and(...where))
      .orderBy(desc(callResults.pinned), desc(callResults.createdAt), desc(sql`rowid`))
      .limit(limit)
      .all()
      .map((row) => ({ ...row, result: row.result as ToolResult }));
  }

  /**
   * Pin or unpin the calls of `tool` with this call id (of `principal` only, when given).
   * Returns how many records changed: 0 means there is no such call.
   */
  setPinned(tool: string, callId: string, pinned: boolean, principal?: string): number {
    const where = [eq(callResults.tool, tool), eq(callResults.callId, callId)];
    if (principal !== undefined) where.push(eq(callResults.principal, principal));
    return this.db
      .update(callResults)
      .set({ pinned, updatedAt: Date.now() })
      .where(and(...where))
      .run().changes;
  }
}
