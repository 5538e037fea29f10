import { and, asc, count, desc, eq, gt, inArray, isNull, lte, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type {
  ApprovalEventInput,
  ApprovalEventRow,
  ApprovalRow,
  ApprovalRowFilter,
  ApprovalRowStore,
  ChangeOutcome,
  GuardedChange,
  NewApproval,
} from "../approvals";
import { afterDescending, pageSize, toPage, type Page } from "../paging";
import type { ApprovalStatus } from "../schema";
import { approvalEvents, approvals, callResults } from "../schema.pg";
import { containsPattern, searchWords } from "../search";
import type { PgDb } from "./open";

/** A transaction handle of the PostgreSQL database: every statement of a write goes through it. */
type Tx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

/**
 * The approvals table and its audit trail on PostgreSQL, the twin of the SQLite ApprovalRows.
 * Each write is one transaction with its event row, and every statement inside it goes through the
 * transaction's own connection (a statement on the pool would run on another connection, outside
 * the transaction, and could wait for ever for a connection the transaction holds).
 *
 * Exactly-once holds across processes without locks held in between: a status change is a
 * conditional UPDATE (its WHERE names the statuses it may start from), which PostgreSQL re-checks
 * on the committed row after waiting for a concurrent writer, so of many callers on any number of
 * instances exactly one gets a row back. A request is an INSERT … ON CONFLICT (key) DO NOTHING, so
 * concurrent requests for one call make one row and read it back instead of failing on the key.
 */
export class PgApprovalRows implements ApprovalRowStore {
  constructor(private readonly db: PgDb) {}

  async byId(id: string): Promise<ApprovalRow | undefined> {
    const [row] = await this.db.select().from(approvals).where(eq(approvals.id, id));
    return row;
  }

  async byKey(key: string): Promise<ApprovalRow | undefined> {
    const [row] = await this.db.select().from(approvals).where(eq(approvals.key, key));
    return row;
  }

  async insertOnce(row: NewApproval, now: number, event: ApprovalEventInput): Promise<{ row: ApprovalRow; created: boolean }> {
    return this.db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(approvals)
        .values({ ...row, status: "pending", createdAt: now, updatedAt: now })
        .onConflictDoNothing({ target: approvals.key })
        .returning();
      if (inserted) {
        await writeEvent(tx, inserted.id, event, now);
        return { row: inserted, created: true };
      }
      // Another request for the same call committed first (the insert waited for it): read its row,
      // which this statement sees because each statement takes a fresh snapshot at READ COMMITTED.
      const [existing] = await tx.select().from(approvals).where(eq(approvals.key, row.key));
      if (!existing) throw new Error(`approval ${row.key} conflicted on its key but cannot be read`);
      return { row: existing, created: false };
    });
  }

  async change(id: string, change: GuardedChange, event: ApprovalEventInput, now: number): Promise<ChangeOutcome> {
    const guards: SQL[] = [eq(approvals.id, id), inArray(approvals.status, [...change.from])];
    if (change.notExpired !== undefined) guards.push(gt(approvals.expiresAt, change.notExpired));
    if (change.match)
      guards.push(
        eq(approvals.scope, change.match.scope),
        eq(approvals.callId, change.match.callId),
        eq(approvals.tool, change.match.tool),
        eq(approvals.argsDigest, change.match.argsDigest),
      );
    return this.db.transaction(async (tx): Promise<ChangeOutcome> => {
      const [row] = await tx
        .update(approvals)
        .set({ ...change.set, updatedAt: now })
        .where(and(...guards))
        .returning();
      if (!row) {
        const [current] = await tx.select().from(approvals).where(eq(approvals.id, id));
        return { changed: false, row: current };
      }
      await writeEvent(tx, id, event, now);
      return { changed: true, row };
    });
  }

  async expireDue(now: number, from: readonly ApprovalStatus[]): Promise<ApprovalRow[]> {
    return this.db.transaction(async (tx) => {
      const rows = await tx
        .update(approvals)
        .set({ status: "expired", updatedAt: now })
        .where(and(inArray(approvals.status, [...from]), lte(approvals.expiresAt, now)))
        .returning();
      if (rows.length)
        await tx
          .insert(approvalEvents)
          .values(rows.map((row) => ({ approvalId: row.id, type: "expired" as const, actor: "system", createdAt: now, updatedAt: now })));
      return rows;
    });
  }

  async recordOutcome(id: string, result: Record<string, unknown>, now: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.update(approvals).set({ result, ranAt: now, updatedAt: now }).where(eq(approvals.id, id));
      await tx
        .insert(approvalEvents)
        .values({ approvalId: id, type: "ran", actor: "executor", data: result, createdAt: now, updatedAt: now });
    });
  }

  async settleInterrupted(now: number, unknown: (row: ApprovalRow) => Record<string, unknown>): Promise<ApprovalRow[]> {
    return this.db.transaction(async (tx) => {
      const cut = await tx
        .select({ approval: approvals, recorded: callResults.result, recordedAt: callResults.createdAt })
        .from(approvals)
        .leftJoin(
          callResults,
          and(
            eq(callResults.principal, approvals.principal),
            eq(callResults.scope, approvals.scope),
            eq(callResults.callId, approvals.callId),
            eq(callResults.tool, approvals.tool),
            eq(callResults.argsDigest, approvals.argsDigest),
          ),
        )
        .where(and(eq(approvals.status, "consumed"), isNull(approvals.result)));
      const settled: ApprovalRow[] = [];
      for (const { approval, recorded, recordedAt } of cut) {
        const result = recorded ?? unknown(approval);
        const ranAt = recorded ? recordedAt : null;
        // Guarded like a transition: two instances starting at once settle each approval once.
        const [row] = await tx
          .update(approvals)
          .set({ result, ranAt, updatedAt: now })
          .where(and(eq(approvals.id, approval.id), eq(approvals.status, "consumed"), isNull(approvals.result)))
          .returning();
        if (!row) continue;
        await tx
          .insert(approvalEvents)
          .values({ approvalId: approval.id, type: "ran", actor: "system", data: result, createdAt: now, updatedAt: now });
        settled.push(row);
      }
      return settled;
    });
  }

  async markAnswered(id: string, runId: string, by: string, now: number): Promise<ApprovalRow | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(approvals)
        .set({ answeredAt: now, answeredRunId: runId, updatedAt: now })
        .where(and(eq(approvals.id, id), isNull(approvals.answeredAt)))
        .returning();
      if (row)
        await tx
          .insert(approvalEvents)
          .values({ approvalId: id, type: "answered", actor: by, data: { runId }, createdAt: now, updatedAt: now });
      return row;
    });
  }

  async page(filter: ApprovalRowFilter): Promise<Page<ApprovalRow>> {
    const limit = pageSize(filter.limit, 50, 500);
    const where: Array<SQL | undefined> = [];
    const statuses = filter.status === undefined ? [] : Array.isArray(filter.status) ? filter.status : [filter.status];
    if (statuses.length) where.push(inArray(approvals.status, statuses));
    if (filter.tool) where.push(eq(approvals.tool, filter.tool));
    if (filter.threadId) where.push(eq(approvals.threadId, filter.threadId));
    if (filter.runId) where.push(eq(approvals.runId, filter.runId));
    if (filter.principal) where.push(eq(approvals.principal, filter.principal));
    if (filter.surface) where.push(eq(approvals.surface, filter.surface));
    for (const word of searchWords(filter.text))
      where.push(anyContainsIgnoringCase([approvals.tool, sql`${approvals.args}::text`, approvals.principal], word));
    where.push(afterDescending(filter.cursor, approvals.createdAt, approvals.id));
    const rows = await this.db
      .select()
      .from(approvals)
      .where(and(...where))
      .orderBy(desc(approvals.createdAt), desc(approvals.id))
      .limit(limit + 1);
    return toPage(rows, limit, (row) => [row.createdAt, row.id]);
  }

  async countPending(now: number): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(approvals)
      .where(and(eq(approvals.status, "pending"), gt(approvals.expiresAt, now)));
    return row?.n ?? 0;
  }

  async unansweredForThread(threadId: string, surface: string): Promise<ApprovalRow[]> {
    return this.db
      .select()
      .from(approvals)
      .where(and(eq(approvals.threadId, threadId), eq(approvals.surface, surface), isNull(approvals.answeredAt)))
      .orderBy(asc(approvals.createdAt), asc(approvals.id));
  }

  async events(id: string): Promise<ApprovalEventRow[]> {
    return this.db.select().from(approvalEvents).where(eq(approvalEvents.approvalId, id)).orderBy(asc(approvalEvents.id));
  }
}

async function writeEvent(tx: Tx, approvalId: string, event: ApprovalEventInput, now: number): Promise<void> {
  await tx.insert(approvalEvents).values({
    approvalId,
    type: event.type,
    actor: event.actor,
    // jsonb takes the object itself: drizzle would store a pre-serialised string as a JSON string.
    ...(event.data && { data: event.data }),
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * `word` appears in any of `columns`, ignoring case. PostgreSQL's LIKE is case-sensitive where
 * SQLite's ignores ASCII case, so the twin of lib/db/search.ts's anyColumnContains uses ILIKE, with
 * the same escaped pattern.
 */
function anyContainsIgnoringCase(columns: Array<SQL | AnyColumn>, word: string): SQL {
  const pattern = containsPattern(word);
  return or(...columns.map((column) => sql`${column} ilike ${pattern} escape '\\'`))!;
}
