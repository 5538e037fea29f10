import { and, count, desc, eq, gt, lte } from "drizzle-orm";
import type pg from "pg";
import {
  A2A_TERMINAL_STATES,
  tasksWaitingFor,
  visibleTasks,
  type A2ATaskFilter,
  type A2ATaskRow,
  type A2ATaskRowStore,
  type A2ATaskWrite,
} from "../a2a-tasks";
import { afterDescending, toPage, type Page } from "../paging";
import { a2aTasks } from "../schema.pg";
import type { PgDb } from "./open";

const UPSERT = `insert into a2a_tasks (id, principal, context_id, state, task, parked, approval_id, expires_at, created_at, updated_at)
  select r.id, r.principal, r.context_id, r.state, r.task, r.parked, r.approval_id, r.expires_at, $2, $2
  from jsonb_to_recordset($1::jsonb) as r(id text, principal text, context_id text, state integer, task jsonb, parked jsonb,
    approval_id text, expires_at bigint)
  on conflict (id) do update set state = excluded.state, task = excluded.task, context_id = excluded.context_id,
    expires_at = excluded.expires_at, updated_at = excluded.updated_at`;
/** The principal of an existing row never changes: another caller's write of the same id is dropped. */
const OWNED = "where a2a_tasks.principal = excluded.principal";
const UPSERT_KEEPING_PARKED = `${UPSERT} ${OWNED}`;
const UPSERT_SETTING_PARKED = `${UPSERT}, parked = excluded.parked, approval_id = excluded.approval_id ${OWNED}`;

/**
 * With the principal's advisory lock held: its unexpired tasks, and (only when they fill `cap` and
 * enough of them have ended) its oldest ended ones deleted, `needed + slack` at most.
 */
const MAKE_ROOM = `with held as (
    select count(*)::int as n from a2a_tasks where principal = $1 and expires_at > $3
  ), ended as (
    select id from a2a_tasks where principal = $1 and expires_at > $3 and state in (${A2A_TERMINAL_STATES.join(", ")})
    order by updated_at limit greatest((select n from held) - $2 + 1 + $4, 0)
  ), dropped as (
    delete from a2a_tasks where id in (select id from ended)
      and (select n from held) >= $2 and (select count(*) from ended) >= (select n from held) - $2 + 1
    returning 1
  )
  select (select n from held) as held, (select count(*)::int from dropped) as dropped`;

/**
 * A2A tasks on PostgreSQL, the twin of the SQLite A2ATaskRows, for consoles sharing one database.
 *
 * saveMany is one statement per kind of write (a multi-row upsert from one JSON parameter), in one
 * transaction when both kinds are present, rows in id order so two instances saving overlapping
 * batches lock them in the same order. makeRoom holds a transaction advisory lock on the principal
 * while it counts and deletes, so two instances making room for one caller take turns instead of
 * deleting the same rows and refusing each other. Other instances start tasks too, so the room it
 * grants is at most `slack + 1`: N instances caching their grants overshoot the cap by at most
 * (N - 1) × (slack + 1).
 */
export class PgA2ATaskRows implements A2ATaskRowStore {
  constructor(private readonly db: PgDb) {}

  get open(): boolean {
    return !this.db.$client.ending;
  }

  async save(write: A2ATaskWrite, now: number): Promise<void> {
    await this.saveMany([write], now);
  }

  async saveMany(writes: ReadonlyArray<A2ATaskWrite>, now: number): Promise<void> {
    if (!writes.length) return;
    const sorted = [...writes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const keeping = sorted.filter((write) => write.parked === undefined);
    const setting = sorted.filter((write) => write.parked !== undefined);
    const statements: Array<[string, A2ATaskWrite[]]> = [];
    if (keeping.length) statements.push([UPSERT_KEEPING_PARKED, keeping]);
    if (setting.length) statements.push([UPSERT_SETTING_PARKED, setting]);
    const pool = this.db.$client;
    if (statements.length === 1) {
      const [text, rows] = statements[0]!;
      await pool.query(text, [recordsOf(rows), now]);
      return;
    }
    await inTransaction(pool, async (client) => {
      for (const [text, rows] of statements) await client.query(text, [recordsOf(rows), now]);
    });
  }

  async get(principal: string, id: string, now: number): Promise<A2ATaskRow | undefined> {
    const [row] = await this.db
      .select()
      .from(a2aTasks)
      .where(and(eq(a2aTasks.id, id), eq(a2aTasks.principal, principal), gt(a2aTasks.expiresAt, now)));
    return row;
  }

  async page(principal: string, filter: A2ATaskFilter, cursor: string | undefined, limit: number, now: number): Promise<Page<A2ATaskRow>> {
    const rows = await this.db
      .select()
      .from(a2aTasks)
      .where(and(visibleTasks(a2aTasks, principal, filter, now), afterDescending(cursor, a2aTasks.updatedAt, a2aTasks.id)))
      .orderBy(desc(a2aTasks.updatedAt), desc(a2aTasks.id))
      .limit(limit + 1);
    return toPage(rows, limit, (row) => [row.updatedAt, row.id]);
  }

  async countFor(principal: string, filter: A2ATaskFilter, now: number): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(a2aTasks)
      .where(visibleTasks(a2aTasks, principal, filter, now));
    return row?.n ?? 0;
  }

  async makeRoom(principal: string, cap: number, now: number, slack = 0): Promise<number> {
    await this.deleteExpired(now);
    const { held, dropped } = await inTransaction(this.db.$client, async (client) => {
      await client.query("select pg_advisory_xact_lock(hashtextextended($1, 0))", [`a2a_tasks:${principal}`]);
      const { rows } = await client.query<{ held: number; dropped: number }>(MAKE_ROOM, [principal, cap, now, slack]);
      return rows[0]!;
    });
    if (held < cap) return Math.min(cap - held, slack + 1);
    const needed = held - cap + 1;
    return dropped < needed ? 0 : dropped - needed + 1;
  }

  async deleteExpired(now: number): Promise<number> {
    const result = await this.db.delete(a2aTasks).where(lte(a2aTasks.expiresAt, now));
    return result.rowCount ?? 0;
  }

  async waitingFor(approvalId: string, now: number): Promise<A2ATaskRow[]> {
    return this.db
      .select()
      .from(a2aTasks)
      .where(tasksWaitingFor(a2aTasks, approvalId, now));
  }
}

/** `work` on one connection between BEGIN and COMMIT; rolled back when it throws. */
async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const result = await work(client);
    await client.query("commit");
    return result;
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** The JSON parameter of an upsert: one record per task, JSON columns as JSON (not as text). */
function recordsOf(writes: ReadonlyArray<A2ATaskWrite>): string {
  return JSON.stringify(
    writes.map((write) => ({
      id: write.id,
      principal: write.principal,
      context_id: write.contextId,
      state: write.state,
      task: write.task,
      parked: write.parked ?? null,
      approval_id: write.parked?.calls[0]?.approvalId ?? null,
      expires_at: write.expiresAt,
    })),
  );
}
