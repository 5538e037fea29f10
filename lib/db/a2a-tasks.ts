import { and, count, desc, eq, gt, notInArray, type AnyColumn, type SQL } from "drizzle-orm";
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

/** Thrown inside makeRoom's transaction to roll it back. */
const NO_ROOM = new Error("no room");

/** A row as SQLite returns it: snake_case names, JSON as text. */
interface RawRow {
  id: string;
  principal: string;
  context_id: string;
  state: number;
  task: string;
  parked: string | null;
  approval_id: string | null;
  expires_at: number;
  created_at: number;
  updated_at: number;
}

function fromRaw(row: RawRow): A2ATaskRow {
  return {
    id: row.id,
    principal: row.principal,
    contextId: row.context_id,
    state: row.state,
    task: JSON.parse(row.task) as Record<string, unknown>,
    parked: row.parked === null ? null : (JSON.parse(row.parked) as A2AParkedCall),
    approvalId: row.approval_id,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface A2ATaskFilter {
  contextId?: string;
  state?: number;
  /** Only tasks changed after this time (ms since the epoch). */
  updatedAfter?: number;
}

/**
 * The a2a_tasks table, whatever the database. Every read is bound to the principal that created the
 * task, so one caller never sees, resumes or cancels another's; tasks past their time read as gone.
 * A2ATaskRows (SQLite) and PgA2ATaskRows (./postgres/a2a-tasks) implement it.
 */
export interface A2ATaskRowStore {
  /** False once the database is closed: nothing more can be written. */
  readonly open: boolean;
  /** Insert or replace the task's row (the principal of an existing row never changes). */
  save(write: A2ATaskWrite, now: number): Promise<void>;
  /** Several saves in one transaction: all are written or none. */
  saveMany(writes: ReadonlyArray<A2ATaskWrite>, now: number): Promise<void>;
  /** The principal's task, unless it expired. */
  get(principal: string, id: string, now: number): Promise<A2ATaskRow | undefined>;
  /** The principal's unexpired tasks, most recently changed first, a page at a time. Rejects with InvalidCursor. */
  page(principal: string, filter: A2ATaskFilter, cursor: string | undefined, limit: number, now: number): Promise<Page<A2ATaskRow>>;
  /** How many of the principal's unexpired tasks match `filter`. */
  countFor(principal: string, filter: A2ATaskFilter, now: number): Promise<number>;
  /**
   * Make room for new tasks of `principal` under `cap`, after sweeping expired rows: when it holds
   * `cap` tasks, its oldest ended ones go, `slack` more than one so the next calls need not come
   * back. Resolves with how many tasks it may start now (at least one), or 0 when its unended tasks
   * alone fill the cap (then nothing of its tasks is deleted).
   */
  makeRoom(principal: string, cap: number, now: number, slack?: number): Promise<number>;
  /** Forget tasks past their time (one statement); resolves with how many went. */
  deleteExpired(now: number): Promise<number>;
  /** Unexpired, unended tasks parked on `approvalId` (whoever asked). */
  waitingFor(approvalId: string, now: number): Promise<A2ATaskRow[]>;
}

/** The columns of a2a_tasks the shared conditions read, in either dialect's table. */
interface A2ATaskColumns {
  principal: AnyColumn;
  contextId: AnyColumn;
  state: AnyColumn;
  approvalId: AnyColumn;
  expiresAt: AnyColumn;
  updatedAt: AnyColumn;
}

/** The principal's unexpired tasks that match `filter`. */
export function visibleTasks(t: A2ATaskColumns, principal: string, filter: A2ATaskFilter, now: number): SQL {
  return and(
    eq(t.principal, principal),
    gt(t.expiresAt, now),
    filter.contextId === undefined ? undefined : eq(t.contextId, filter.contextId),
    filter.state === undefined ? undefined : eq(t.state, filter.state),
    filter.updatedAfter === undefined ? undefined : gt(t.updatedAt, filter.updatedAfter),
  )!;
}

/** Unexpired, unended tasks parked on `approvalId`. */
export function tasksWaitingFor(t: A2ATaskColumns, approvalId: string, now: number): SQL {
  return and(eq(t.approvalId, approvalId), notInArray(t.state, A2A_TERMINAL_STATES), gt(t.expiresAt, now))!;
}

/** A2A tasks on SQLite; each method's work runs before its promise is returned. */
export class A2ATaskRows implements A2ATaskRowStore {
  // save, get and held sit on every SendMessage's path: raw statements compiled once, without the
  // query builder, which cost more than the statements themselves (measured by `npm run bench a2a`).
  private readonly sql;
  private readonly saveAll: (writes: ReadonlyArray<A2ATaskWrite>, now: number) => void;
  private readonly makeRoomTx: (principal: string, cap: number, now: number, slack: number) => number;
  private readonly sweepTx: (now: number) => number;

  constructor(private readonly db: Db) {
    const sqlite = db.$client;
    const insert = `insert into a2a_tasks (id, principal, context_id, state, task, parked, approval_id, expires_at, created_at, updated_at)
      values (@id, @principal, @contextId, @state, @task, @parked, @approvalId, @expiresAt, @now, @now)
      on conflict (id) do update set state = excluded.state, task = excluded.task, context_id = excluded.context_id,
        expires_at = excluded.expires_at, updated_at = excluded.updated_at`;
    // The principal of an existing row never changes: another caller's write of the same id is dropped.
    const owned = "where a2a_tasks.principal = excluded.principal";
    this.sql = {
      upsertKeepingParked: sqlite.prepare(`${insert} ${owned}`),
      upsertSettingParked: sqlite.prepare(`${insert}, parked = excluded.parked, approval_id = excluded.approval_id ${owned}`),
      get: sqlite.prepare<[string, string, number], RawRow>("select * from a2a_tasks where id = ? and principal = ? and expires_at > ?"),
      sweep: sqlite.prepare<[number]>("delete from a2a_tasks where expires_at <= ?"),
      // Read from the (principal, updated_at) index alone; the sweep before it removed expired rows.
      held: sqlite.prepare<[string], { n: number }>("select count(*) as n from a2a_tasks where principal = ?"),
      dropOldestEnded: sqlite.prepare<[string, number]>(
        `delete from a2a_tasks where id in (select id from a2a_tasks where principal = ? and state in (${A2A_TERMINAL_STATES.join(", ")})
         order by updated_at limit ?)`,
      ),
    };
    const { sweep, held: heldBy, dropOldestEnded } = this.sql;
    this.makeRoomTx = sqlite.transaction((principal: string, cap: number, now: number, slack: number): number => {
      sweep.run(now);
      const held = heldBy.get(principal)!.n;
      if (held < cap) return cap - held;
      const needed = held - cap + 1;
      const dropped = dropOldestEnded.run(principal, needed + slack).changes;
      // Too few ended tasks to make room: undo the partial delete, the caller is refused.
      if (dropped < needed) throw NO_ROOM;
      return dropped - needed + 1;
    });
    this.sweepTx = (now) => sweep.run(now).changes;
    this.saveAll = sqlite.transaction((writes: ReadonlyArray<A2ATaskWrite>, now: number) => {
      for (const write of writes) this.saveOne(write, now);
    });
  }

  get open(): boolean {
    return this.db.$client.open;
  }

  async save(write: A2ATaskWrite, now: number): Promise<void> {
    this.saveOne(write, now);
  }

  /** One commit, one fsync. */
  async saveMany(writes: ReadonlyArray<A2ATaskWrite>, now: number): Promise<void> {
    if (writes.length === 1) this.saveOne(writes[0]!, now);
    else if (writes.length) this.saveAll(writes, now);
  }

  async get(principal: string, id: string, now: number): Promise<A2ATaskRow | undefined> {
    const row = this.sql.get.get(id, principal, now);
    return row && fromRaw(row);
  }

  private saveOne(write: A2ATaskWrite, now: number): void {
    const params = {
      id: write.id,
      principal: write.principal,
      contextId: write.contextId,
      state: write.state,
      task: JSON.stringify(write.task),
      parked: write.parked ? JSON.stringify(write.parked) : null,
      approvalId: write.parked?.calls[0]?.approvalId ?? null,
      expiresAt: write.expiresAt,
      now,
    };
    (write.parked === undefined ? this.sql.upsertKeepingParked : this.sql.upsertSettingParked).run(params);
  }

  async page(principal: string, filter: A2ATaskFilter, cursor: string | undefined, limit: number, now: number): Promise<Page<A2ATaskRow>> {
    const rows = this.db
      .select()
      .from(a2aTasks)
      .where(and(visibleTasks(a2aTasks, principal, filter, now), afterDescending(cursor, a2aTasks.updatedAt, a2aTasks.id)))
      .orderBy(desc(a2aTasks.updatedAt), desc(a2aTasks.id))
      .limit(limit + 1)
      .all();
    return toPage(rows, limit, (row) => [row.updatedAt, row.id]);
  }

  async countFor(principal: string, filter: A2ATaskFilter, now: number): Promise<number> {
    return (
      this.db
        .select({ n: count() })
        .from(a2aTasks)
        .where(visibleTasks(a2aTasks, principal, filter, now))
        .get()?.n ?? 0
    );
  }

  /** One transaction: refused, it deletes nothing, expired rows included. */
  async makeRoom(principal: string, cap: number, now: number, slack = 0): Promise<number> {
    try {
      return this.makeRoomTx(principal, cap, now, slack);
    } catch (error) {
      if (error === NO_ROOM) return 0;
      throw error;
    }
  }

  async deleteExpired(now: number): Promise<number> {
    return this.sweepTx(now);
  }

  async waitingFor(approvalId: string, now: number): Promise<A2ATaskRow[]> {
    return this.db
      .select()
      .from(a2aTasks)
      .where(tasksWaitingFor(a2aTasks, approvalId, now))
      .all();
  }
}
