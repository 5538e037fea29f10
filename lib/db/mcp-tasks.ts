import { and, desc, eq, gt, lt, lte, notInArray, or, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { afterDescending, toPage, type Page } from "./paging";
import { mcpTasks, type McpTaskStatus } from "./schema";

export type McpTaskRow = typeof mcpTasks.$inferSelect;
export type { McpTaskStatus };

export type NewMcpTask = Omit<McpTaskRow, "createdAt" | "updatedAt" | "leaseUntil" | "statusMessage" | "result" | "approvalId"> &
  Partial<Pick<McpTaskRow, "statusMessage" | "result" | "approvalId">>;

const TERMINAL: McpTaskStatus[] = ["completed", "failed", "cancelled"];

/**
 * The mcp_tasks table. Every read is bound to the principal that created the task, so one caller
 * never sees, waits on or cancels another's task; tasks past their time read as gone. Changes of
 * status are guarded UPDATEs (from the statuses a change may leave), so of two processes racing
 * on one task exactly one wins.
 */
export class McpTaskRows {
  constructor(private readonly db: Db) {}

  insert(task: NewMcpTask, now: number): McpTaskRow {
    return this.db
      .insert(mcpTasks)
      .values({ ...task, createdAt: now, updatedAt: now })
      .returning()
      .get();
  }

  /** The principal's task, unless it expired. */
  get(principal: string, id: string, now: number): McpTaskRow | undefined {
    return this.db
      .select()
      .from(mcpTasks)
      .where(and(eq(mcpTasks.id, id), eq(mcpTasks.principal, principal), gt(mcpTasks.expiresAt, now)))
      .get();
  }

  /** Unexpired tasks waiting for `approvalId` (whoever asked). */
  waitingFor(approvalId: string, now: number): McpTaskRow[] {
    return this.db
      .select()
      .from(mcpTasks)
      .where(and(eq(mcpTasks.approvalId, approvalId), eq(mcpTasks.status, "input_required"), gt(mcpTasks.expiresAt, now)))
      .all();
  }

  /** The principal's unexpired tasks, newest first, a page at a time. Throws InvalidCursor. */
  page(principal: string, cursor: string | undefined, limit: number, now: number): Page<McpTaskRow> {
    const rows = this.db
      .select()
      .from(mcpTasks)
      .where(and(eq(mcpTasks.principal, principal), gt(mcpTasks.expiresAt, now), afterDescending(cursor, mcpTasks.createdAt, mcpTasks.id)))
      .orderBy(desc(mcpTasks.createdAt), desc(mcpTasks.id))
      .limit(limit + 1)
      .all();
    return toPage(rows, limit, (row) => [row.createdAt, row.id]);
  }

  /**
   * Take the task to run its call: from input_required, or from working when the process that held
   * it let its lease lapse (it stopped). Returns the row when this caller won it.
   */
  claim(id: string, leaseUntil: number, now: number): McpTaskRow | undefined {
    return this.db
      .update(mcpTasks)
      .set({ status: "working", leaseUntil, updatedAt: now })
      .where(
        and(
          eq(mcpTasks.id, id),
          or(eq(mcpTasks.status, "input_required"), and(eq(mcpTasks.status, "working"), lt(mcpTasks.leaseUntil, now))),
        ),
      )
      .returning()
      .get();
  }

  /** Move a task that has not ended to `status`; returns the row when it changed. */
  update(
    id: string,
    change: { status: McpTaskStatus; statusMessage?: string | null; result?: Record<string, unknown>; approvalId?: string | null },
    now: number,
  ): McpTaskRow | undefined {
    return this.db
      .update(mcpTasks)
      .set({ ...change, leaseUntil: null, updatedAt: now })
      .where(and(eq(mcpTasks.id, id), notInArray(mcpTasks.status, TERMINAL)))
      .returning()
      .get();
  }

  /** Forget tasks past their time; returns how many went. */
  deleteExpired(now: number): number {
    return this.db.delete(mcpTasks).where(lte(mcpTasks.expiresAt, now)).run().changes;
  }

  /** How many unexpired tasks the principal holds (a bound on what one caller may keep). */
  countFor(principal: string, now: number): number {
    return (
      this.db
        .select({ n: sql<number>`count(*)` })
        .from(mcpTasks)
        .where(and(eq(mcpTasks.principal, principal), gt(mcpTasks.expiresAt, now)))
        .get()?.n ?? 0
    );
  }
}
