import type { AGUIEvent } from "@ag-ui/core";
import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import { RunIdTaken } from "../../runs/errors";
import { expandRecord, recordOf } from "../../runs/record-batch";
import { afterDescending, pageSize, toPage, type Page } from "../paging";
import {
  encodeEnd,
  endNotStored,
  startColumns,
  rowsHolding,
  type EncodedEnd,
  type Run,
  type RunEnd,
  type RunFilter,
  type RunStart,
  type RunStore,
  type Thread,
  columnsWithout,
  type RunSummary,
  type ThreadSummary,
} from "../runs";
import { runEvents, runs, threads } from "../schema.pg";
import type { PgDb } from "./open";
import { prepared } from "./prepared";

/** The columns the lists select (ThreadSummary, RunSummary). */
const THREAD_SUMMARY = columnsWithout(threads, "messages", "state");
const RUN_SUMMARY = columnsWithout(runs, "inputState");

/** A transaction handle of the PostgreSQL database: every statement of a write goes through it. */
type Tx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

/** How long appended events may wait in memory before they are written (as on SQLite). */
const WRITE_DELAY_MS = 100;
/** A run's waiting events are written at once when their record grows past this many characters. */
const MAX_WAITING_CHARS = 256 * 1024;

/** Consecutive batches of one run waiting to be written as one row, numbered from firstSeq. */
interface Waiting {
  runId: string;
  firstSeq: number;
  count: number;
  /** Each batch's record entries, without the array brackets. */
  parts: string[];
  chars: number;
}

/**
 * A run's start in one statement: the run row, then its thread (created, or given a title when it
 * has none) only when the run row was written. The run's primary key decides between two instances
 * starting the same id at once: the second insert waits for the first to commit, then does nothing,
 * and neither it nor its thread change is written. The run's foreign key is checked at the end of
 * the statement, when its thread exists.
 */
const START_RUN = `with run as (
    insert into runs (id, thread_id, agent, principal, surface, status, parent_run_id, input_state, started_at, created_at, updated_at)
    values ($1::text, $2::text, $3::text, $4::text, $5::text, 'running', $6::text, $9::jsonb, $8::bigint, $8::bigint, $8::bigint)
    on conflict (id) do nothing
    returning id
  ), thread as (
    insert into threads (id, agent, principal, title, created_at, updated_at)
    select $2::text, $3::text, $4::text, $7::text, $8::bigint, $8::bigint where exists (select 1 from run)
    on conflict (id) do update set title = excluded.title, updated_at = excluded.updated_at
      where threads.title is null and excluded.title is not null
  )
  select id from run`;

/** Waiting rows as one INSERT of the arrays' elements ($1 run ids, $2 first positions, $3 counts, $4 records, $5 now). */
const INSERT_ROWS = `insert into run_events (run_id, seq, count, events, created_at, updated_at)
  select r.run_id, r.seq, r.count, r.events, $5::bigint, $5::bigint
    from unnest($1::text[], $2::int[], $3::int[], $4::text[]) as r(run_id, seq, count, events)`;

/** INSERT_ROWS with a run's end ($6 …) and its thread's latest messages and state, in one statement. */
const FINISH_RUN = `with written as (${INSERT_ROWS}), run as (
    update runs set status = $7::text, outcome = $8::jsonb, error = $9::text, tool_call_count = $10::int, usage = $11::jsonb,
      finished_at = $5::bigint, updated_at = $5::bigint
    where id = $6::text returning thread_id
  )
  update threads set updated_at = $5::bigint, messages = coalesce($12::jsonb, threads.messages), state = coalesce($13::jsonb, threads.state)
    from run where threads.id = run.thread_id`;

/** Who a thread belongs to ($1 its id): asked before every run. */
const THREAD_OWNER = "select principal from threads where id = $1";

/** The parameters $1 to $5 of INSERT_ROWS. */
function rowParams(rows: Waiting[], now: number): unknown[] {
  return [
    rows.map((row) => row.runId),
    rows.map((row) => row.firstSeq),
    rows.map((row) => row.count),
    rows.map((row) => `[${row.parts.join(",")}]`),
    now,
  ];
}

/**
 * The run store on PostgreSQL, the twin of the SQLite SqliteRunStore.
 *
 * Events are written behind the stream as on SQLite: `append` and `appendRecord` only queue them
 * (a run's consecutive batches become one row), and they are written WRITE_DELAY_MS later, when a
 * run's queue grows past MAX_WAITING_CHARS, before every read of this store, and with the run's
 * end. Only one write of the queue is in flight at a time, so rows reach the table in the order
 * they were appended. The queue is this instance's: another instance reading a live run sees its
 * events at most WRITE_DELAY_MS late.
 *
 * The batch is stored as JSON text (a Buffer cannot go into a text column; PostgreSQL compresses
 * long values itself). A start is one statement, and so is each write of the queue (with the run's
 * end when it is a finish): one round trip, one commit. Only when such a write fails is it done
 * again as one transaction whose statements all go through its own connection (`tx`), each event
 * row in a savepoint so that a row the database refuses is dropped alone. JSON the caller already serialised (a run's messages, state, outcome) goes in as a text
 * parameter cast to jsonb, never through drizzle's jsonb column, which would store it as a string.
 *
 * There is no `closeAbandoned` here: on a shared database, ending every "running" run at start-up
 * would end the live runs of the other instances. lib/db/postgres/leases.ts (AbandonedRuns) ends
 * only the runs whose instance stopped holding their lease.
 */
export class PgRunStore implements RunStore {
  /** Each run's open row, still taking consecutive batches. */
  private readonly open = new Map<string, Waiting>();
  /** Rows closed by a batch that did not follow on, waiting for the next write. */
  private ready: Waiting[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The write of the queue in flight (or the last one): the next one starts after it. */
  private writing: Promise<void> = Promise.resolve();

  /** `onWriteError` hears of events that could not be recorded (they are dropped). */
  constructor(
    private readonly db: PgDb,
    private readonly onWriteError: (error: unknown, runIds: string[]) => void = () => {},
  ) {}

  async start(input: RunStart): Promise<void> {
    const { surface, parentRunId, title, inputState } = startColumns(input);
    const { rows } = await this.db.$client.query<{ id: string }>(
      prepared(START_RUN, [input.runId, input.threadId, input.agent, input.principal, surface, parentRunId, title, Date.now(), inputState]),
    );
    if (!rows.length) throw new RunIdTaken(input.runId);
  }

  append(runId: string, firstSeq: number, events: readonly AGUIEvent[]): void {
    const record = recordOf(events);
    if (record) this.appendRecord(runId, firstSeq, record.count, record.json);
  }

  appendRecord(runId: string, firstSeq: number, count: number, json: string): void {
    if (!count) return;
    let waiting = this.open.get(runId);
    if (waiting && waiting.firstSeq + waiting.count !== firstSeq) {
      this.ready.push(waiting);
      waiting = undefined;
    }
    if (!waiting) {
      waiting = { runId, firstSeq, count: 0, parts: [], chars: 0 };
      this.open.set(runId, waiting);
    }
    waiting.count += count;
    waiting.parts.push(json.slice(1, -1));
    waiting.chars += json.length;
    if (waiting.chars > MAX_WAITING_CHARS) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), WRITE_DELAY_MS).unref();
  }

  /** Write everything waiting. Never rejects: a failure goes to onWriteError and its events are dropped. */
  flush(): Promise<void> {
    return this.serially(async () => {
      const rows = this.take();
      if (!rows.length) return;
      if (await this.attempt(INSERT_ROWS, rowParams(rows, Date.now()))) return;
      let refused: Refusal[];
      try {
        refused = await this.db.transaction((tx) => writeRows(tx, rows));
      } catch (error) {
        // The commit itself failed: nothing of this write was stored.
        this.onWriteError(
          error,
          rows.map((row) => row.runId),
        );
        return;
      }
      for (const { row, error } of refused) this.onWriteError(error, [row.runId]);
    });
  }

  /**
   * Record how a run ended, its waiting events (and other runs' waiting ones) in the same commit,
   * and keep the thread's latest messages and state. As on SQLite, a run never stays "running"
   * because its full end could not be stored: the failure goes to onWriteError, the events are
   * written on their own and the run is recorded as `error`, the thread keeping what it had.
   * Rejects only when even that fails.
   */
  finish(runId: string, end: RunEnd): Promise<void> {
    return this.serially(async () => {
      const now = Date.now();
      const rows = this.take();
      try {
        const encoded = encodeEnd(end);
        if (
          await this.attempt(FINISH_RUN, [
            ...rowParams(rows, now),
            runId,
            encoded.status,
            encoded.outcome,
            encoded.error,
            encoded.toolCallCount,
            encoded.usage,
            encoded.messages,
            encoded.state,
          ])
        )
          return;
        const refused = await this.db.transaction(async (tx) => {
          const refusedRows = await writeRows(tx, rows);
          await finishRun(tx, runId, encoded, now);
          return refusedRows;
        });
        for (const { row, error } of refused) this.onWriteError(error, [row.runId]);
        return;
      } catch (error) {
        this.onWriteError(error, [runId]);
      }
      // The transaction rolled back as a whole: the events go on their own, then the bare end.
      if (rows.length) {
        try {
          const refused = await this.db.transaction((tx) => writeRows(tx, rows));
          for (const { row, error } of refused) this.onWriteError(error, [row.runId]);
        } catch (error) {
          this.onWriteError(
            error,
            rows.map((row) => row.runId),
          );
        }
      }
      await this.db
        .update(runs)
        .set({
          status: "error",
          outcome: null,
          error: endNotStored(end.status),
          toolCallCount: end.toolCallCount ?? 0,
          usage: null,
          finishedAt: now,
          updatedAt: now,
        })
        .where(eq(runs.id, runId));
    });
  }

  async threadOwner(id: string): Promise<string | undefined> {
    const { rows } = await this.db.$client.query<{ principal: string }>(prepared(THREAD_OWNER, [id]));
    return rows[0]?.principal;
  }

  async getThread(id: string): Promise<Thread | undefined> {
    const [row] = await this.db.select().from(threads).where(eq(threads.id, id));
    return row;
  }

  async listThreads(filter: { principal?: string; limit?: number } = {}): Promise<ThreadSummary[]> {
    const where = filter.principal ? eq(threads.principal, filter.principal) : undefined;
    // SQLite breaks a tie on updated_at by insertion order; here the id breaks it, the same way on every read.
    return this.db
      .select(THREAD_SUMMARY)
      .from(threads)
      .where(where)
      .orderBy(desc(threads.updatedAt), desc(threads.id))
      .limit(pageSize(filter.limit, 30, 200));
  }

  async getRun(id: string): Promise<Run | undefined> {
    const [row] = await this.db.select().from(runs).where(eq(runs.id, id));
    return row;
  }

  async listRuns(filter: RunFilter = {}): Promise<Page<RunSummary>> {
    const limit = pageSize(filter.limit, 50, 500);
    const where: Array<SQL | undefined> = [];
    if (filter.agent) where.push(eq(runs.agent, filter.agent));
    if (filter.threadId) where.push(eq(runs.threadId, filter.threadId));
    if (filter.principal) where.push(eq(runs.principal, filter.principal));
    if (filter.status) where.push(eq(runs.status, filter.status));
    where.push(afterDescending(filter.cursor, runs.startedAt, runs.id));
    const rows = await this.db
      .select(RUN_SUMMARY)
      .from(runs)
      .where(and(...where))
      .orderBy(desc(runs.startedAt), desc(runs.id))
      .limit(limit + 1);
    return toPage(rows, limit, (row) => [row.startedAt, row.id]);
  }

  async events(runId: string, afterSeq = -1): Promise<AGUIEvent[]> {
    await this.flush();
    const rows = await this.db
      .select({ seq: runEvents.seq, events: runEvents.events })
      .from(runEvents)
      .where(and(eq(runEvents.runId, runId), rowsHolding(runEvents.seq, runId, afterSeq)))
      .orderBy(asc(runEvents.seq));
    const out: AGUIEvent[] = [];
    for (const row of rows) {
      expandRecord(row.events).forEach((event, i) => {
        if (row.seq + i > afterSeq) out.push(event);
      });
    }
    return out;
  }

  /**
   * Run one statement in a commit of its own; false when it failed (and so wrote nothing). The
   * common write is one round trip this way; when it fails, the caller writes again the slow way,
   * a transaction with a savepoint per row, which keeps what the database accepts and says what it
   * refused.
   */
  private async attempt(text: string, params: unknown[]): Promise<boolean> {
    try {
      await this.db.$client.query(prepared(text, params));
      return true;
    } catch {
      return false;
    }
  }

  /** Every waiting row, out of the queue (appends made from now on start rows of their own). */
  private take(): Waiting[] {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = [...this.ready, ...this.open.values()];
    this.ready = [];
    this.open.clear();
    return rows;
  }

  /** Run `work` after the write in flight, and keep the queue's writes one at a time. */
  private serially(work: () => Promise<void>): Promise<void> {
    const next = this.writing.then(work);
    // A rejection is the caller's to hear (finish); the next write starts regardless.
    this.writing = next.catch(() => {});
    return next;
  }
}

interface Refusal {
  row: Waiting;
  error: unknown;
}

/** Insert each row in its own savepoint of the transaction; resolves with the rows the database refused. */
async function writeRows(tx: Tx, rows: Waiting[]): Promise<Refusal[]> {
  const refused: Refusal[] = [];
  const now = Date.now();
  for (const row of rows) {
    try {
      await tx.transaction(async (savepoint) => {
        await savepoint.insert(runEvents).values({
          runId: row.runId,
          seq: row.firstSeq,
          count: row.count,
          events: `[${row.parts.join(",")}]`,
          createdAt: now,
          updatedAt: now,
        });
      });
    } catch (error) {
      refused.push({ row, error });
    }
  }
  return refused;
}

/** The run's end and its thread's latest messages and state (kept as they were when not reported). */
async function finishRun(tx: Tx, runId: string, end: EncodedEnd, now: number): Promise<void> {
  const finished = await tx.execute<{ thread_id: string }>(
    sql`update runs set status = ${end.status}, outcome = ${end.outcome}::jsonb, error = ${end.error},
        tool_call_count = ${end.toolCallCount}, usage = ${end.usage}::jsonb, finished_at = ${now}, updated_at = ${now}
        where id = ${runId} returning thread_id`,
  );
  const threadId = finished.rows[0]?.thread_id;
  if (threadId === undefined) return;
  await tx.execute(
    sql`update threads set updated_at = ${now}, messages = coalesce(${end.messages}::jsonb, messages),
        state = coalesce(${end.state}::jsonb, state) where id = ${threadId}`,
  );
}
