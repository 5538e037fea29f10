import { and, asc, desc, eq, isNull, lte, sql, type SQL } from "drizzle-orm";
import type { Db } from "./connection";
import { afterDescending, pageSize, toPage, type Page } from "./paging";
import { approvalEvents, approvals, callResults, type ApprovalStatus } from "./schema";
import { anyColumnContains, searchWords } from "./search";

export type ApprovalRow = typeof approvals.$inferSelect;
export type ApprovalEventRow = typeof approvalEvents.$inferSelect;
export type ApprovalEventType = ApprovalEventRow["type"];

export interface ApprovalRowFilter {
  status?: ApprovalStatus | ApprovalStatus[];
  tool?: string;
  threadId?: string;
  runId?: string;
  principal?: string;
  surface?: string;
  /** Words matched against the tool name, the arguments and the principal. */
  text?: string;
  cursor?: string;
  /** 1 to 500, default 50. */
  limit?: number;
}

/** The event row a change writes beside it, in the same transaction. */
export interface ApprovalEventInput {
  type: ApprovalEventType;
  actor: string;
  data?: Record<string, unknown>;
}

/**
 * One guarded change of an approval's row: it applies only while the row's status is one of
 * `from` (and, when given, it has not expired at `notExpired` and it is bound to `match`).
 */
export interface GuardedChange {
  from: readonly ApprovalStatus[];
  notExpired?: number;
  match?: { scope: string; callId: string; tool: string; argsDigest: string };
  /** Columns to set; a null clears the column. */
  set: Partial<ApprovalRow>;
}

/** A call as its caller names it when it sends no call key: what it is, not which one. */
export interface UnkeyedCall {
  scope: string;
  tool: string;
  argsDigest: string;
}

export type NewApproval = Omit<
  ApprovalRow,
  | "status"
  | "decidedBy"
  | "decidedAt"
  | "reason"
  | "editedArgs"
  | "consumedAt"
  | "result"
  | "ranAt"
  | "answeredAt"
  | "answeredRunId"
  | "createdAt"
  | "updatedAt"
>;

const p = (name: string) => sql.placeholder(name);

/** What a guarded change did: the changed row, or the row as it is when the guard refused (undefined: no such id). */
export type ChangeOutcome = { changed: true; row: ApprovalRow } | { changed: false; row: ApprovalRow | undefined };

/**
 * What the approval store needs from its rows, whatever the database: every write is atomic with
 * its audit event, and every status change is guarded by the status it starts from, so two
 * concurrent callers never both win. SQLite (ApprovalRows) and PostgreSQL implement it.
 */
export interface ApprovalRowStore {
  byId(id: string): Promise<ApprovalRow | undefined>;
  byKey(key: string): Promise<ApprovalRow | undefined>;
  /** The row with this key, or a new pending one with its "requested" event. `created` says which. */
  insertOnce(row: NewApproval, now: number, event: ApprovalEventInput): Promise<{ row: ApprovalRow; created: boolean }>;
  /** Apply `change` with its event, atomically; a refused change returns the row as it is. */
  change(id: string, change: GuardedChange, event: ApprovalEventInput, now: number): Promise<ChangeOutcome>;
  /** Every row in one of `from` past its time becomes expired, with an "expired" event each. Returns them. */
  expireDue(now: number, from: readonly ApprovalStatus[]): Promise<ApprovalRow[]>;
  /** Keep the outcome of the call an approval allowed, with a "ran" event; resolves with the row as it is then, or undefined when there is none. */
  recordOutcome(id: string, result: Record<string, unknown>, now: number): Promise<ApprovalRow | undefined>;
  /** At start-up: give consumed approvals with no outcome the recorded result or `unknown(row)`. */
  settleInterrupted(now: number, unknown: (row: ApprovalRow) => Record<string, unknown>): Promise<ApprovalRow[]>;
  /** Mark the outcome as delivered to its conversation (once). Returns the row when it changed. */
  markAnswered(id: string, runId: string, by: string, now: number): Promise<ApprovalRow | undefined>;
  /** Newest first, filtered, a page at a time. Rejects with InvalidCursor. */
  page(filter: ApprovalRowFilter): Promise<Page<ApprovalRow>>;
  countPending(now: number): Promise<number>;
  /** Rows of a thread on `surface` whose outcome has not reached the conversation, oldest first. */
  unansweredForThread(threadId: string, surface: string): Promise<ApprovalRow[]>;
  /** The newest row asked since `since` for this caller, scope, tool and arguments whose outcome has not reached the caller. */
  unansweredForCall(principal: string, call: UnkeyedCall, since: number): Promise<ApprovalRow | undefined>;
  /** The audit trail of one approval, oldest first. */
  events(id: string): Promise<ApprovalEventRow[]>;
}

/**
 * The approvals table and its append-only audit trail (approval_events) on SQLite. Every write is
 * one immediate transaction with its event row; the frequent statements are compiled once (building
 * them per call cost most of a decision). The methods are async to share ApprovalRowStore with
 * PostgreSQL, but each body stays synchronous: a better-sqlite3 transaction must never await
 * (given an async callback it throws, then runs the statements outside any transaction).
 */
export class ApprovalRows implements ApprovalRowStore {
  private readonly statements;
  private readonly guarded = new Map<string, ReturnType<typeof prepareGuardedUpdate>>();

  constructor(private readonly db: Db) {
    const eventValues = { approvalId: p("approvalId"), type: p("type"), actor: p("actor"), createdAt: p("now"), updatedAt: p("now") };
    this.statements = {
      byId: db
        .select()
        .from(approvals)
        .where(eq(approvals.id, p("id")))
        .prepare(),
      byKey: db
        .select()
        .from(approvals)
        .where(eq(approvals.key, p("key")))
        .prepare(),
      insert: db
        .insert(approvals)
        .values({
          id: p("id"),
          key: p("key"),
          principal: p("principal"),
          scope: p("scope"),
          callId: p("callId"),
          runId: p("runId"),
          threadId: p("threadId"),
          surface: p("surface"),
          tool: p("tool"),
          args: p("args"),
          argsDigest: p("argsDigest"),
          message: p("message"),
          status: "pending",
          expiresAt: p("expiresAt"),
          createdAt: p("now"),
          updatedAt: p("now"),
        })
        .returning()
        .prepare(),
      unansweredForThread: db
        .select()
        .from(approvals)
        .where(and(eq(approvals.threadId, p("threadId")), eq(approvals.surface, p("surface")), isNull(approvals.answeredAt)))
        .orderBy(asc(approvals.createdAt), asc(approvals.id))
        .prepare(),
      unansweredForCall: db
        .select()
        .from(approvals)
        .where(
          and(
            eq(approvals.principal, p("principal")),
            eq(approvals.scope, p("scope")),
            eq(approvals.tool, p("tool")),
            eq(approvals.argsDigest, p("argsDigest")),
            sql`${approvals.createdAt} > ${p("since")}`,
            isNull(approvals.answeredAt),
          ),
        )
        .orderBy(desc(approvals.createdAt), desc(approvals.id))
        .limit(1)
        .prepare(),
      countPending: db
        .select({ n: sql<number>`count(*)` })
        .from(approvals)
        .where(and(eq(approvals.status, "pending"), sql`${approvals.expiresAt} > ${p("now")}`))
        .prepare(),
      event: db.insert(approvalEvents).values(eventValues).prepare(),
      eventWithData: db
        .insert(approvalEvents)
        .values({ ...eventValues, data: p("data") })
        .prepare(),
    };
  }

  async byId(id: string): Promise<ApprovalRow | undefined> {
    return this.statements.byId.get({ id });
  }

  async byKey(key: string): Promise<ApprovalRow | undefined> {
    return this.statements.byKey.get({ key });
  }

  /** The row with this key, or a new pending one with its "requested" event. `created` says which. */
  async insertOnce(row: NewApproval, now: number, event: ApprovalEventInput): Promise<{ row: ApprovalRow; created: boolean }> {
    return this.db.transaction(
      () => {
        // Prepared statements run on the same connection, so inside this transaction.
        const existing = this.statements.byKey.get({ key: row.key });
        if (existing) return { row: existing, created: false };
        const inserted = this.statements.insert.get({ ...row, now })!;
        this.writeEvent(inserted.id, event, now);
        return { row: inserted, created: true };
      },
      { behavior: "immediate" },
    );
  }

  /**
   * Apply `change` with its event in one transaction. Returns the changed row, or the row as it
   * is when the guard refused the change; undefined when no row has this id.
   */
  async change(id: string, change: GuardedChange, event: ApprovalEventInput, now: number): Promise<ChangeOutcome> {
    // Null values are left out of the parameters: a JSON column would store a placeholder's null as 'null'.
    const set = Object.fromEntries(Object.entries(change.set).filter(([, value]) => value !== undefined && value !== null));
    const cleared = Object.keys(change.set).filter((column) => change.set[column as keyof ApprovalRow] === null);
    const shape = JSON.stringify([change.from, change.notExpired !== undefined, change.match !== undefined, Object.keys(set), cleared]);
    let statement = this.guarded.get(shape);
    if (!statement) {
      statement = prepareGuardedUpdate(
        this.db,
        change.from,
        Object.keys(set),
        cleared,
        change.notExpired !== undefined,
        change.match !== undefined,
      );
      this.guarded.set(shape, statement);
    }
    const update = statement;
    return this.db.transaction(
      () => {
        const row = update.get({
          ...prefixed(set),
          id,
          now,
          notExpired: change.notExpired ?? 0,
          ...(change.match && prefixed(change.match, "match_")),
        });
        if (!row) return { changed: false as const, row: this.statements.byId.get({ id }) };
        this.writeEvent(id, event, now);
        return { changed: true as const, row };
      },
      { behavior: "immediate" },
    );
  }

  /** Every row in one of `from` past its time becomes expired, with an "expired" event each. Returns them. */
  async expireDue(now: number, from: readonly ApprovalStatus[]): Promise<ApprovalRow[]> {
    return this.db.transaction(
      (tx) => {
        const rows = tx
          .update(approvals)
          .set({ status: "expired", updatedAt: now })
          .where(and(sql`${approvals.status} in ${from}`, lte(approvals.expiresAt, now)))
          .returning()
          .all();
        if (rows.length)
          tx.insert(approvalEvents)
            .values(rows.map((row) => ({ approvalId: row.id, type: "expired" as const, actor: "system", createdAt: now, updatedAt: now })))
            .run();
        return rows;
      },
      { behavior: "immediate" },
    );
  }

  /** Keep the outcome of the call the approval allowed, with a "ran" event. */
  async recordOutcome(id: string, result: Record<string, unknown>, now: number): Promise<ApprovalRow | undefined> {
    return this.db.transaction((tx) => {
      const row = tx.update(approvals).set({ result, ranAt: now, updatedAt: now }).where(eq(approvals.id, id)).returning().get();
      if (row)
        tx.insert(approvalEvents)
          .values({ approvalId: id, type: "ran", actor: "executor", data: result, createdAt: now, updatedAt: now })
          .run();
      return row;
    });
  }

  /**
   * Approvals used by a call whose outcome was never recorded on them (consumed, no result): after
   * a restart, calls cut off by the stop. Each one gets its outcome, with a "ran" event by
   * "system": the call's result when call_results has it (the process stopped between the two
   * writes), else `unknown(row)`; `ranAt` is set only for a recorded result. Returns the rows changed.
   * Only for start-up: in a live process such an approval may belong to a call still running.
   */
  async settleInterrupted(now: number, unknown: (row: ApprovalRow) => Record<string, unknown>): Promise<ApprovalRow[]> {
    return this.db.transaction(
      (tx) => {
        const cut = tx
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
          .where(and(eq(approvals.status, "consumed"), isNull(approvals.result)))
          .all();
        return cut.map(({ approval, recorded, recordedAt }) => {
          const result = recorded ?? unknown(approval);
          const ranAt = recorded ? recordedAt : null;
          const row = tx.update(approvals).set({ result, ranAt, updatedAt: now }).where(eq(approvals.id, approval.id)).returning().get()!;
          tx.insert(approvalEvents)
            .values({ approvalId: approval.id, type: "ran", actor: "system", data: result, createdAt: now, updatedAt: now })
            .run();
          return row;
        });
      },
      { behavior: "immediate" },
    );
  }

  /** Mark the approval's outcome as delivered to its conversation (once), with an "answered" event. Returns the row when it changed. */
  async markAnswered(id: string, runId: string, by: string, now: number): Promise<ApprovalRow | undefined> {
    return this.db.transaction((tx) => {
      const row = tx
        .update(approvals)
        .set({ answeredAt: now, answeredRunId: runId, updatedAt: now })
        .where(and(eq(approvals.id, id), isNull(approvals.answeredAt)))
        .returning()
        .get();
      if (row)
        tx.insert(approvalEvents)
          .values({ approvalId: id, type: "answered", actor: by, data: { runId }, createdAt: now, updatedAt: now })
          .run();
      return row;
    });
  }

  /** Newest first, filtered, a page at a time. Throws InvalidCursor. */
  async page(filter: ApprovalRowFilter): Promise<Page<ApprovalRow>> {
    const limit = pageSize(filter.limit, 50, 500);
    const where: Array<SQL | undefined> = [];
    const statuses = filter.status === undefined ? [] : Array.isArray(filter.status) ? filter.status : [filter.status];
    if (statuses.length) where.push(sql`${approvals.status} in ${statuses}`);
    if (filter.tool) where.push(eq(approvals.tool, filter.tool));
    if (filter.threadId) where.push(eq(approvals.threadId, filter.threadId));
    if (filter.runId) where.push(eq(approvals.runId, filter.runId));
    if (filter.principal) where.push(eq(approvals.principal, filter.principal));
    if (filter.surface) where.push(eq(approvals.surface, filter.surface));
    for (const word of searchWords(filter.text)) where.push(anyColumnContains([approvals.tool, approvals.args, approvals.principal], word));
    where.push(afterDescending(filter.cursor, approvals.createdAt, approvals.id));
    const rows = this.db
      .select()
      .from(approvals)
      .where(and(...where))
      .orderBy(desc(approvals.createdAt), desc(approvals.id))
      .limit(limit + 1)
      .all();
    return toPage(rows, limit, (row) => [row.createdAt, row.id]);
  }

  async countPending(now: number): Promise<number> {
    return this.statements.countPending.get({ now })?.n ?? 0;
  }

  /** Rows of a thread on `surface` whose outcome has not reached the conversation, oldest first. */
  async unansweredForThread(threadId: string, surface: string): Promise<ApprovalRow[]> {
    // Every AG-UI run asks this before it starts (are there answers to deliver?): compiled once.
    return this.statements.unansweredForThread.all({ threadId, surface });
  }

  async unansweredForCall(principal: string, call: UnkeyedCall, since: number): Promise<ApprovalRow | undefined> {
    return this.statements.unansweredForCall.get({ principal, ...call, since });
  }

  /** The audit trail of one approval, oldest first. */
  async events(id: string): Promise<ApprovalEventRow[]> {
    return this.db.select().from(approvalEvents).where(eq(approvalEvents.approvalId, id)).orderBy(asc(approvalEvents.id)).all();
  }

  private writeEvent(approvalId: string, event: ApprovalEventInput, now: number): void {
    if (event.data) this.statements.eventWithData.run({ approvalId, type: event.type, actor: event.actor, data: event.data, now });
    else this.statements.event.run({ approvalId, type: event.type, actor: event.actor, now });
  }
}

/** One guarded status change, compiled for a shape of change (which columns it sets and what it checks). */
function prepareGuardedUpdate(
  db: Db,
  from: readonly ApprovalStatus[],
  columns: string[],
  cleared: string[],
  checksExpiry: boolean,
  checksBinding: boolean,
) {
  const guards: SQL[] = [eq(approvals.id, p("id")), sql`${approvals.status} in ${from}`];
  if (checksExpiry) guards.push(sql`${approvals.expiresAt} > ${p("notExpired")}`);
  if (checksBinding)
    guards.push(
      eq(approvals.scope, p("match_scope")),
      eq(approvals.callId, p("match_callId")),
      eq(approvals.tool, p("match_tool")),
      eq(approvals.argsDigest, p("match_argsDigest")),
    );
  const set: Record<string, unknown> = { updatedAt: p("now") };
  for (const column of columns) set[column] = p(`set_${column}`);
  for (const column of cleared) set[column] = null;
  return db
    .update(approvals)
    .set(set as Partial<ApprovalRow>)
    .where(and(...guards))
    .returning()
    .prepare();
}

function prefixed(values: object, prefix = "set_"): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [`${prefix}${key}`, value]));
}
