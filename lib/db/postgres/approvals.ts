import { and, desc, eq, getTableColumns, inArray, isNull, or, sql, type AnyColumn, type Column, type SQL } from "drizzle-orm";
import type pg from "pg";
import type {
  ApprovalEventInput,
  ApprovalEventRow,
  ApprovalRow,
  ApprovalRowFilter,
  ApprovalRowStore,
  ChangeOutcome,
  GuardedChange,
  NewApproval,
  UnkeyedCall,
} from "../approvals";
import { afterDescending, pageSize, toPage, type Page } from "../paging";
import type { ApprovalStatus } from "../schema";
import { approvalEvents, approvals, callResults } from "../schema.pg";
import { containsPattern, searchWords } from "../search";
import type { PgDb } from "./open";
import { prepared } from "./prepared";

/**
 * The approvals table and its audit trail on PostgreSQL, the twin of the SQLite ApprovalRows.
 * Each write is ONE statement: the guarded change and its event row are a data-modifying CTE
 * (`with changed as (update … returning *), logged as (insert into approval_events … select … from
 * changed) select * from changed`), atomic on its own, so a write costs one round trip instead of a
 * transaction's four or more (BEGIN, change, event, COMMIT), and no statement runs outside it.
 * The frequent statements are sent as raw named (prepared) statements and their rows mapped with
 * the schema's own column decoders: building and mapping them through drizzle cost several times
 * the round trip. A statement's name is derived from its text, so every instance on a connection
 * agrees on it (node-postgres refuses one name for two texts).
 *
 * Exactly-once holds across processes without locks held in between: a status change is a
 * conditional UPDATE (its WHERE names the statuses it may start from), which PostgreSQL re-checks
 * on the committed row after waiting for a concurrent writer, so of many callers on any number of
 * instances exactly one gets a row back. A request is an INSERT … ON CONFLICT (key) DO NOTHING, so
 * concurrent requests for one call make one row and read it back instead of failing on the key.
 * A statement sees the rows committed when it started, so the row a refused change or a conflicting
 * request reads back is read by a second statement, which sees the writer it waited for.
 */
export class PgApprovalRows implements ApprovalRowStore {
  constructor(private readonly db: PgDb) {}

  async byId(id: string): Promise<ApprovalRow | undefined> {
    return (await this.approvalRows(BY_ID, [id]))[0];
  }

  async byKey(key: string): Promise<ApprovalRow | undefined> {
    return (await this.approvalRows(BY_KEY, [key]))[0];
  }

  async insertOnce(row: NewApproval, now: number, event: ApprovalEventInput): Promise<{ row: ApprovalRow; created: boolean }> {
    const { rows } = await this.query<RawRow & { created: boolean }>(INSERT_ONCE, [
      row.id,
      row.key,
      row.principal,
      row.scope,
      row.callId,
      row.runId,
      row.threadId,
      row.surface,
      row.tool,
      JSON.stringify(row.args),
      row.argsDigest,
      row.message,
      row.expiresAt,
      now,
      event.type,
      event.actor,
      eventData(event),
    ]);
    const [first] = rows;
    if (first) return { row: toApproval(first), created: first.created };
    // Another request for the same call committed after this statement started (its insert waited
    // for it): a new statement sees its row.
    const existing = await this.byKey(row.key);
    if (!existing) throw new Error(`approval ${row.key} conflicted on its key but cannot be read`);
    return { row: existing, created: false };
  }

  async change(id: string, change: GuardedChange, event: ApprovalEventInput, now: number): Promise<ChangeOutcome> {
    const assignments = Object.entries(change.set).filter(([name, value]) => name !== "updatedAt" && value !== undefined);
    const values: unknown[] = [id, [...change.from], now, event.type, event.actor, eventData(event)];
    const param = (value: unknown) => `$${values.push(value)}`;
    const set = assignments.map(([name, value]) => {
      const column = APPROVAL_COLUMNS.get(name);
      if (!column) throw new Error(`approvals has no column ${name}`);
      return `${column.name} = ${param(value === null ? null : column.mapToDriverValue(value))}`;
    });
    const guards = ["id = $1", "status = any($2::text[])"];
    if (change.notExpired !== undefined) guards.push(`expires_at > ${param(change.notExpired)}`);
    if (change.match)
      guards.push(
        `scope = ${param(change.match.scope)}`,
        `call_id = ${param(change.match.callId)}`,
        `tool = ${param(change.match.tool)}`,
        `args_digest = ${param(change.match.argsDigest)}`,
      );
    const text = `with changed as (
        update approvals set ${[...set, "updated_at = $3"].join(", ")} where ${guards.join(" and ")} returning *
      ), logged as (
        ${INSERT_EVENT} select id, $4::text, $5::text, $6::jsonb, $3::bigint, $3::bigint from changed
      )
      select * from changed`;
    const [row] = await this.approvalRows(text, values);
    if (row) return { changed: true, row };
    return { changed: false, row: await this.byId(id) };
  }

  async expireDue(now: number, from: readonly ApprovalStatus[]): Promise<ApprovalRow[]> {
    return this.approvalRows(EXPIRE_DUE, [[...from], now]);
  }

  async recordOutcome(id: string, result: Record<string, unknown>, now: number): Promise<ApprovalRow | undefined> {
    const [row] = await this.approvalRows(RECORD_OUTCOME, [id, JSON.stringify(result), now]);
    return row;
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
    return (await this.approvalRows(MARK_ANSWERED, [id, runId, now, by, JSON.stringify({ runId })]))[0];
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
    const { rows } = await this.query<{ n: number }>(COUNT_PENDING, [now]);
    return rows[0]?.n ?? 0;
  }

  async unansweredForThread(threadId: string, surface: string): Promise<ApprovalRow[]> {
    return this.approvalRows(UNANSWERED_FOR_THREAD, [threadId, surface]);
  }

  async unansweredForCall(principal: string, call: UnkeyedCall, since: number): Promise<ApprovalRow | undefined> {
    const [row] = await this.approvalRows(UNANSWERED_FOR_CALL, [principal, call.scope, call.tool, call.argsDigest, since]);
    return row;
  }

  async events(id: string): Promise<ApprovalEventRow[]> {
    const { rows } = await this.query(EVENTS, [id]);
    return rows.map((raw) => fromDriver<ApprovalEventRow>(EVENT_COLUMNS, raw));
  }

  private async approvalRows(text: string, values: unknown[]): Promise<ApprovalRow[]> {
    const { rows } = await this.query(text, values);
    return rows.map(toApproval);
  }

  /** Run one statement on the pool as a named statement: parsed once per connection. */
  private query<R extends RawRow = RawRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return this.db.$client.query<R>(prepared(text, values));
  }
}

type RawRow = Record<string, unknown>;
type Columns = ReadonlyMap<string, Column>;

/** Each table's columns by property name, to decode raw rows as drizzle does (ms from int8 text, jsonb). */
const APPROVAL_COLUMNS: Columns = new Map(Object.entries(getTableColumns(approvals)));
const EVENT_COLUMNS: Columns = new Map(Object.entries(getTableColumns(approvalEvents)));

/** The row drizzle would give for `raw` (snake_case columns as node-postgres returns them). */
function fromDriver<T>(columns: Columns, raw: RawRow): T {
  const row: RawRow = {};
  for (const [key, column] of columns) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T;
}

const toApproval = (raw: RawRow): ApprovalRow => fromDriver<ApprovalRow>(APPROVAL_COLUMNS, raw);

/** jsonb parameters go as JSON text: node-postgres would send a JS array as a PostgreSQL array. */
const eventData = (event: ApprovalEventInput): string | null => (event.data ? JSON.stringify(event.data) : null);

const INSERT_EVENT = "insert into approval_events (approval_id, type, actor, data, created_at, updated_at)";

const BY_ID = "select * from approvals where id = $1";
const BY_KEY = "select * from approvals where key = $1";

/**
 * The new pending row with its event, or (no event) the row already there when this statement
 * started. `created` says which. An empty answer means a concurrent request committed it meanwhile.
 */
const INSERT_ONCE = `with inserted as (
    insert into approvals (id, key, principal, scope, call_id, run_id, thread_id, surface, tool, args, args_digest, message, expires_at, status, created_at, updated_at)
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'pending', $14, $14)
    on conflict (key) do nothing
    returning *
  ), logged as (
    ${INSERT_EVENT} select id, $15::text, $16::text, $17::jsonb, $14::bigint, $14::bigint from inserted
  )
  select *, true as created from inserted
  union all
  select *, false as created from approvals where key = $2 and not exists (select from inserted)`;

const EXPIRE_DUE = `with expired as (
    update approvals set status = 'expired', updated_at = $2 where status = any($1::text[]) and expires_at <= $2 returning *
  ), logged as (
    ${INSERT_EVENT} select id, 'expired', 'system', null, $2::bigint, $2::bigint from expired
  )
  select * from expired`;

/** Like the SQLite twin, the event is written even when no row changed (an unknown id then fails on the key). */
const RECORD_OUTCOME = `with updated as (
    update approvals set result = $2::jsonb, ran_at = $3, updated_at = $3 where id = $1 returning *
  ), logged as (
    ${INSERT_EVENT} select id, 'ran', 'executor', $2::jsonb, $3::bigint, $3::bigint from updated
  )
  select * from updated`;

const MARK_ANSWERED = `with answered as (
    update approvals set answered_at = $3, answered_run_id = $2, updated_at = $3 where id = $1 and answered_at is null returning *
  ), logged as (
    ${INSERT_EVENT} select id, 'answered', $4::text, $5::jsonb, $3::bigint, $3::bigint from answered
  )
  select * from answered`;

const COUNT_PENDING = "select count(*)::int as n from approvals where status = 'pending' and expires_at > $1";
const UNANSWERED_FOR_THREAD =
  "select * from approvals where thread_id = $1 and surface = $2 and answered_at is null order by created_at, id";
const UNANSWERED_FOR_CALL =
  "select * from approvals where principal = $1 and scope = $2 and tool = $3 and args_digest = $4 and created_at > $5 " +
  "and answered_at is null order by created_at desc, id desc limit 1";
const EVENTS = "select * from approval_events where approval_id = $1 order by id";

/**
 * `word` appears in any of `columns`, ignoring case. PostgreSQL's LIKE is case-sensitive where
 * SQLite's ignores ASCII case, so the twin of lib/db/search.ts's anyColumnContains uses ILIKE, with
 * the same escaped pattern.
 */
function anyContainsIgnoringCase(columns: Array<SQL | AnyColumn>, word: string): SQL {
  const pattern = containsPattern(word);
  return or(...columns.map((column) => sql`${column} ilike ${pattern} escape '\\'`))!;
}
