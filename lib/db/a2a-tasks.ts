import { and, asc, count, desc, eq, gt, inArray, lte, notInArray, type SQL } from "drizzle-orm";
import type { Db } from "./connection";
import { afterDescending, toPage, type Page } from "./paging";
import { a2aTasks, type A2AParkedCall } from "./schema";

export type A2ATaskRow = typeof a2aTasks.$inferSelect;
export type { A2AParkedCall };

/** TaskState numbers of the A2A protocol that end a task (completed, failed, canceled, rejected). */
export const A2A_TERMINAL_STATES = [3, 4, 5, 7];

export interface A2ATaskWrite {
  id: string;
  principal: string;
  contextId: string;
  state: number;
  task: Record<string, unknown>;
  /** Undefined keeps what the row holds; null clears it. */
  parked?: A2AParkedCall | null;
  expiresAt: number;
}

export interface A2ATaskFilter {
  contextId?: string;
  state?: number;
  /** Only tasks changed after this time (ms since the epoch). */
  updatedAfter?: number;
}

/**
 * The a2a_tasks table. Every read is bound to the principal that created the task, so one caller
 * never sees, resumes or cancels another's; tasks past their time read as gone.
 */
export class A2ATaskRows {
  constructor(private readonly db: Db) {}

  /** Insert or replace the task's row (the principal of an existing row never changes). */
  save(write: A2ATaskWrite, now: number): void {
    const parked = write.parked === undefined ? {} : { parked: write.parked, approvalId: write.parked?.calls[0]?.approvalId ?? null };
    this.db
      .insert(a2aTasks)
      .values({ ...write, ...parked, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: a2aTasks.id,
        set: { state: write.state, task: write.task, contextId: write.contextId, expiresAt: write.expiresAt, updatedAt: now, ...parked },
        where: eq(a2aTasks.principal, write.principal),
      })
      .run();
  }

  /** The principal's task, unless it expired. */
  get(principal: string, id: string, now: number): A2ATaskRow | undefined {
    return this.db
      .select()
      .from(a2aTasks)
      .where(and(eq(a2aTasks.id, id), eq(a2aTasks.principal, principal), gt(a2aTasks.expiresAt, now)))
      .get();
  }

  /** True when a task with this id exists for anyone (ids are global: a second owner may not reuse one). */
  exists(id: string): boolean {
    return this.db.select({ id: a2aTasks.id }).from(a2aTasks).where(eq(a2aTasks.id, id)).get() !== undefined;
  }

  /** The principal's unexpired tasks, most recently changed first, a page at a time. Throws InvalidCursor. */
  page(principal: string, filter: A2ATaskFilter, cursor: string | undefined, limit: number, now: number): Page<A2ATaskRow> {
    const rows = this.db
      .select()
      .from(a2aTasks)
      .where(and(this.visible(principal, filter, now), afterDescending(cursor, a2aTasks.updatedAt, a2aTasks.id)))
      .orderBy(desc(a2aTasks.updatedAt), desc(a2aTasks.id))
      .limit(limit + 1)
      .all();
    return toPage(rows, limit, (row) => [row.updatedAt, row.id]);
  }

  /** How many of the principal's unexpired tasks match `filter`. */
  countFor(principal: string, filter: A2ATaskFilter, now: number): number {
    return (
      this.db
        .select({ n: count() })
        .from(a2aTasks)
        .where(this.visible(principal, filter, now))
        .get()?.n ?? 0
    );
  }

  /**
   * Make room for one more task of `principal` under `cap`: its oldest ended tasks go first.
   * Returns false when its unended tasks alone fill the cap.
   */
  makeRoom(principal: string, cap: number, now: number): boolean {
    return this.db.transaction((tx) => {
      const held = tx
        .select({ n: count() })
        .from(a2aTasks)
        .where(and(eq(a2aTasks.principal, principal), gt(a2aTasks.expiresAt, now)))
        .get()!.n;
      if (held < cap) return true;
      const ended = tx
        .select({ id: a2aTasks.id })
        .from(a2aTasks)
        .where(and(eq(a2aTasks.principal, principal), inArray(a2aTasks.state, A2A_TERMINAL_STATES)))
        .orderBy(asc(a2aTasks.updatedAt))
        .limit(held - cap + 1)
        .all();
      if (ended.length < held - cap + 1) return false;
      tx.delete(a2aTasks)
        .where(
          inArray(
            a2aTasks.id,
            ended.map((row) => row.id),
          ),
        )
        .run();
      return true;
    });
  }

  /** Unexpired, unended tasks parked on `approvalId` (whoever asked). */
  waitingFor(approvalId: string, now: number): A2ATaskRow[] {
    return this.db
      .select()
      .from(a2aTasks)
      .where(and(eq(a2aTasks.approvalId, approvalId), notInArray(a2aTasks.state, A2A_TERMINAL_STATES), gt(a2aTasks.expiresAt, now)))
      .all();
  }

  /** Forget tasks past their time; returns how many went. */
  deleteExpired(now: number): number {
    return this.db.delete(a2aTasks).where(lte(a2aTasks.expiresAt, now)).run().changes;
  }

  private visible(principal: string, filter: A2ATaskFilter, now: number): SQL {
    return and(
      eq(a2aTasks.principal, principal),
      gt(a2aTasks.expiresAt, now),
      filter.contextId === undefined ? undefined : eq(a2aTasks.contextId, filter.contextId),
      filter.state === undefined ? undefined : eq(a2aTasks.state, filter.state),
      filter.updatedAfter === undefined ? undefined : gt(a2aTasks.updatedAt, filter.updatedAfter),
    )!;
  }
}
