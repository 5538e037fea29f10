import { and, desc, eq, gt, lt, lte, notInArray, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Db } from "./connection";
import { afterDescending, toPage, type Page } from "./paging";
import { mcpTasks, type McpTaskStatus } from "./schema";

export type McpTaskRow = typeof mcpTasks.$inferSelect;
export type { McpTaskStatus };

export type NewMcpTask = Omit<McpTaskRow, "createdAt" | "updatedAt" | "leaseUntil" | "statusMessage" | "result" | "approvalId"> &
  Partial<Pick<McpTaskRow, "statusMessage" | "result" | "approvalId">>;

/** What a task may change to (from a status that has not ended). */
export interface McpTaskChange {
  status: McpTaskStatus;
  statusMessage?: string | null;
  result?: Record<string, unknown>;
  approvalId?: string | null;
}

const MCP_TERMINAL_STATUSES: McpTaskStatus[] = ["completed", "failed", "cancelled"];

/**
 * The mcp_tasks table, whatever the database. Every read is bound to the principal that created the
 * task, so one caller never sees, waits on or cancels another's task; tasks past their time read as
 * gone. Changes of status are guarded UPDATEs (from the statuses a change may leave), so of two
 * processes racing on one task exactly one wins. McpTaskRows (SQLite) and PgMcpTaskRows
 * (./postgres/mcp-tasks) implement it.
 */
export interface McpTaskRowStore {
  /**
   * Insert the task unless its principal already holds `cap` unexpired tasks (then undefined).
   * The count and the insert are atomic: callers racing for the last place get one.
   */
  insert(task: NewMcpTask, cap: number, now: number): Promise<McpTaskRow | undefined>;
  /** The principal's task, unless it expired. */
  get(principal: string, id: string, now: number): Promise<McpTaskRow | undefined>;
  /** Unexpired tasks waiting for `approvalId` (whoever asked). */
  waitingFor(approvalId: string, now: number): Promise<McpTaskRow[]>;
  /** The principal's unexpired tasks, newest first, a page at a time. Rejects with InvalidCursor. */
  page(principal: string, cursor: string | undefined, limit: number, now: number): Promise<Page<McpTaskRow>>;
  /**
   * Take the task to run its call: from input_required, or from working when the process that held
   * it let its lease lapse (it stopped). Resolves with the row when this caller won it: of any
   * number of callers, in any number of processes, one wins.
   */
  claim(id: string, leaseUntil: number, now: number): Promise<McpTaskRow | undefined>;
  /** Move a task that has not ended to `change.status`; resolves with the row when it changed. */
  update(id: string, change: McpTaskChange, now: number): Promise<McpTaskRow | undefined>;
  /** Forget tasks past their time (one statement); resolves with how many went. */
  deleteExpired(now: number): Promise<number>;
  /** How many unexpired tasks the principal holds. */
  countFor(principal: string, now: number): Promise<number>;
}

/** The columns of mcp_tasks the shared conditions read, in either dialect's table. */
interface McpTaskColumns {
  id: AnyColumn;
  principal: AnyColumn;
  status: AnyColumn;
  approvalId: AnyColumn;
  expiresAt: AnyColumn;
  leaseUntil: AnyColumn;
}

/** The conditions both dialects' McpTaskRowStore select and change rows by. */
export const mcpTaskWhere = {
  /** The principal's unexpired tasks. */
  held: (t: McpTaskColumns, principal: string, now: number): SQL => and(eq(t.principal, principal), gt(t.expiresAt, now))!,
  /** The principal's task `id`, unless it expired. */
  own: (t: McpTaskColumns, principal: string, id: string, now: number): SQL =>
    and(eq(t.id, id), eq(t.principal, principal), gt(t.expiresAt, now))!,
  /** Unexpired tasks waiting for `approvalId`. */
  waitingFor: (t: McpTaskColumns, approvalId: string, now: number): SQL =>
    and(eq(t.approvalId, approvalId), eq(t.status, "input_required"), gt(t.expiresAt, now))!,
  /** Task `id` while it waits, or while it works under a lease that lapsed before `now`. */
  claimable: (t: McpTaskColumns, id: string, now: number): SQL =>
    and(eq(t.id, id), or(eq(t.status, "input_required"), and(eq(t.status, "working"), lt(t.leaseUntil, now))))!,
  /** Task `id` while it has not ended. */
  unended: (t: McpTaskColumns, id: string): SQL => and(eq(t.id, id), notInArray(t.status, MCP_TERMINAL_STATUSES))!,
};

/** MCP tasks on SQLite; each method's work runs before its promise is returned. */
export class McpTaskRows implements McpTaskRowStore {
  constructor(private readonly db: Db) {}

  async insert(task: NewMcpTask, cap: number, now: number): Promise<McpTaskRow | undefined> {
    return this.db.transaction(
      (tx) => {
        if (held(tx, task.principal, now) >= cap) return undefined;
        return tx
          .insert(mcpTasks)
          .values({ ...task, createdAt: now, updatedAt: now })
          .returning()
          .get();
      },
      { behavior: "immediate" },
    );
  }

  async get(principal: string, id: string, now: number): Promise<McpTaskRow | undefined> {
    return this.db
      .select()
      .from(mcpTasks)
      .where(mcpTaskWhere.own(mcpTasks, principal, id, now))
      .get();
  }

  async waitingFor(approvalId: string, now: number): Promise<McpTaskRow[]> {
    return this.db
      .select()
      .from(mcpTasks)
      .where(mcpTaskWhere.waitingFor(mcpTasks, approvalId, now))
      .all();
  }

  async page(principal: string, cursor: string | undefined, limit: number, now: number): Promise<Page<McpTaskRow>> {
    const rows = this.db
      .select()
      .from(mcpTasks)
      .where(and(mcpTaskWhere.held(mcpTasks, principal, now), afterDescending(cursor, mcpTasks.createdAt, mcpTasks.id)))
      .orderBy(desc(mcpTasks.createdAt), desc(mcpTasks.id))
      .limit(limit + 1)
      .all();
    return toPage(rows, limit, (row) => [row.createdAt, row.id]);
  }

  async claim(id: string, leaseUntil: number, now: number): Promise<McpTaskRow | undefined> {
    return this.db
      .update(mcpTasks)
      .set({ status: "working", leaseUntil, updatedAt: now })
      .where(mcpTaskWhere.claimable(mcpTasks, id, now))
      .returning()
      .get();
  }

  async update(id: string, change: McpTaskChange, now: number): Promise<McpTaskRow | undefined> {
    return this.db
      .update(mcpTasks)
      .set({ ...change, leaseUntil: null, updatedAt: now })
      .where(mcpTaskWhere.unended(mcpTasks, id))
      .returning()
      .get();
  }

  async deleteExpired(now: number): Promise<number> {
    return this.db.delete(mcpTasks).where(lte(mcpTasks.expiresAt, now)).run().changes;
  }

  async countFor(principal: string, now: number): Promise<number> {
    return held(this.db, principal, now);
  }
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

function held(db: Db | Tx, principal: string, now: number): number {
  return (
    db
      .select({ n: sql<number>`count(*)` })
      .from(mcpTasks)
      .where(mcpTaskWhere.held(mcpTasks, principal, now))
      .get()?.n ?? 0
  );
}
