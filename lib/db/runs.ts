import type { AGUIEvent, Message } from "@ag-ui/core";
import { and, asc, desc, eq, getTableColumns, sql, type AnyColumn, type SQL, type Table } from "drizzle-orm";
import { RunIdTaken } from "../runs/errors";
import { expandRecord, recordOf } from "../runs/record-batch";
import type { Db } from "./connection";
import { afterDescending, pageSize, toPage, type Page } from "./paging";
import { RunEventWriter } from "./run-event-writer";
import { runEvents, runs, threads } from "./schema";
import { unpackTextNow } from "./stored-text";

export type Thread = typeof threads.$inferSelect;
/**
 * A thread as lists show it: without its conversation and state, which a long thread holds by the
 * hundred kilobytes (listing 40 threads of 244 KB conversations read and parsed them all: 108 ms
 * with the loop held, `npm run bench -- browser`).
 */
export type ThreadSummary = Omit<Thread, "messages" | "state">;
export type Run = typeof runs.$inferSelect;
/**
 * A run as lists show it: without the state it was given, which a client sharing state sends in
 * full with every run (40 runs given 179 KB each took 52.5 ms to list, the loop held, in the same
 * bench; getRun has it).
 */
export type RunSummary = Omit<Run, "inputState">;
export type RunStatus = Run["status"];

export interface RunStart {
  runId: string;
  threadId: string;
  agent: string;
  principal: string;
  surface?: string;
  parentRunId?: string;
  /** The first user words, used as the thread's title when it has none. */
  title?: string;
  /** The shared state the run was given; kept unless it is empty (`{}`, null or absent). */
  inputState?: unknown;
}

/**
 * A run's given state as its row keeps it: JSON text, or null for none or `{}`, and for a state
 * nested too deeply for JSON.stringify (the run goes on; its end says whether its state was stored).
 */
export function inputStateText(state: unknown): string | null {
  if (state === undefined || state === null) return null;
  if (typeof state === "object" && !Array.isArray(state) && Object.keys(state).length === 0) return null;
  try {
    return JSON.stringify(state) ?? null;
  } catch {
    return null;
  }
}

/**
 * A RunStart's optional columns as both dialects store them: the surface `agui` unless given, the
 * title cut at 120 characters, the given state as inputStateText keeps it, null for what is absent.
 */
export function startColumns(input: RunStart): {
  surface: string;
  parentRunId: string | null;
  title: string | null;
  inputState: string | null;
} {
  return {
    surface: input.surface ?? "agui",
    parentRunId: input.parentRunId ?? null,
    title: input.title?.slice(0, 120) ?? null,
    inputState: inputStateText(input.inputState),
  };
}

export interface RunEnd {
  status: Exclude<RunStatus, "running">;
  outcome?: Record<string, unknown>;
  error?: string;
  messages?: Message[];
  /** `messages` already encoded as JSON (the stream's own encoding of its last snapshot). */
  messagesJson?: string;
  state?: unknown;
  toolCallCount?: number;
  usage?: unknown[];
}

/** A RunEnd as its columns hold it: JSON text, or null for "not reported". */
export interface EncodedEnd {
  status: RunEnd["status"];
  outcome: string | null;
  error: string | null;
  toolCallCount: number;
  usage: string | null;
  messages: string | null;
  state: string | null;
}

/**
 * The condition on run_events (`seq` is either dialect's column) that keeps the rows holding a run's events
 * after position `afterSeq`: the row holding position afterSeq + 1 and those after it (a row holds
 * `count` events from `seq`, and a run's rows follow on). Through the key's index, so a client
 * following a long run (GET /api/runs/ID/stream reads again every 100 ms) reads and expands only
 * what it has not seen, not the whole record each time. Undefined (every row) from the start.
 */
export function rowsHolding(seq: AnyColumn, runId: string, afterSeq: number): SQL | undefined {
  if (afterSeq < 0) return undefined;
  // The subquery names the table itself (run_events in both dialects), under an alias of its own.
  return sql`${seq} >= coalesce((select max(inner_rows.seq) from run_events inner_rows where inner_rows.run_id = ${runId} and inner_rows.seq <= ${afterSeq + 1}), 0)`;
}

/** Serialise a run's end before any write. Throws (RangeError) on a value nested too deeply for JSON.stringify. */
export function encodeEnd(end: RunEnd): EncodedEnd {
  // JSON.stringify answers undefined (not text) for undefined and functions: the column keeps null.
  const json = (value: unknown): string | null => (value === undefined ? null : (JSON.stringify(value) ?? null));
  return {
    status: end.status,
    outcome: json(end.outcome),
    error: end.error ?? null,
    toolCallCount: end.toolCallCount ?? 0,
    usage: json(end.usage),
    messages: end.messagesJson ?? json(end.messages),
    state: json(end.state),
  };
}

/**
 * A table's columns for a select, without `left`: what a list leaves out of its rows (see
 * ThreadSummary and RunSummary). Either dialect's table.
 */
export function columnsWithout<T extends Table, K extends keyof T["_"]["columns"] & string>(
  table: T,
  ...left: K[]
): Omit<T["_"]["columns"], K> {
  const columns: Record<string, unknown> = { ...getTableColumns(table) };
  for (const name of left) delete columns[name];
  return columns as Omit<T["_"]["columns"], K>;
}

/** The columns the lists select (ThreadSummary, RunSummary). */
const THREAD_SUMMARY = columnsWithout(threads, "messages", "state");
const RUN_SUMMARY = columnsWithout(runs, "inputState");

/** The error a run is recorded with when its full end could not be stored. */
export const endNotStored = (status: RunEnd["status"]): string =>
  `The run ended (${status}) but its end could not be stored in full; the server log has the details.`;

export interface RunFilter {
  agent?: string;
  threadId?: string;
  principal?: string;
  status?: RunStatus;
  cursor?: string;
  limit?: number;
}

export { RunIdTaken };

/**
 * The threads, runs and run_events tables: threads, runs and every run's events, in order, for
 * reload, replay and history. The SQLite SqliteRunStore and the PostgreSQL PgRunStore implement it.
 *
 * Every method is asynchronous except `append` and `appendRecord`: they sit on the streaming path
 * (the bridge records each chunk of events it writes to the wire) and only queue the events in
 * memory, to be written a moment later in one transaction. A promise per chunk would cost the hot
 * path for nothing; an implementation whose writes are asynchronous queues the same way and
 * flushes on its own, and its reads (and `finish`) write what waits first.
 */
export interface RunStore {
  /** Record a run as started, creating its thread when new. Rejects with RunIdTaken for a reused run id. */
  start(input: RunStart): Promise<void>;
  /** Queue events of a run, numbered from `firstSeq`, as one batch (written a moment later). */
  append(runId: string, firstSeq: number, events: readonly AGUIEvent[]): void;
  /** Queue `count` events, numbered from `firstSeq`, given as a RecordBatch record (a JSON array). */
  appendRecord(runId: string, firstSeq: number, count: number, json: string): void;
  /** Write the events still waiting in memory (done by every read, and before closing). Never rejects. */
  flush(): Promise<void>;
  /**
   * Record how a run ended, with its last events, and keep the thread's latest messages and state.
   * When that cannot be stored in full the run is recorded as `error`; rejects only when even that fails.
   */
  finish(runId: string, end: RunEnd): Promise<void>;
  /** Who a thread belongs to (its principal id), or undefined for a new thread. */
  threadOwner(id: string): Promise<string | undefined>;
  getThread(id: string): Promise<Thread | undefined>;
  /** Recent threads, newest activity first, without their messages and state (getThread has them). */
  listThreads(filter?: { principal?: string; limit?: number }): Promise<ThreadSummary[]>;
  getRun(id: string): Promise<Run | undefined>;
  /** Runs newest first, filtered, a page at a time, without their input state. Rejects with InvalidCursor. */
  listRuns(filter?: RunFilter): Promise<Page<RunSummary>>;
  /** A run's recorded events in order (those after position `afterSeq` when given). */
  events(runId: string, afterSeq?: number): Promise<AGUIEvent[]>;
}

/**
 * The run store in SQLite. A run's start, its events and its end are on every run's path, so they
 * use raw statements compiled once (measured by `npm run bench agui`). The methods are
 * asynchronous to share RunStore with PostgreSQL, but their bodies are the synchronous statements
 * and transactions they always were: each reads or writes before returning its promise (a
 * better-sqlite3 transaction must never be given an async function).
 */
export class SqliteRunStore implements RunStore {
  private readonly writer: RunEventWriter;
  private readonly sql;
  // Raw prepared statements in transactions built once: both are on every run's path.
  private readonly startTx: (input: RunStart, now: number) => void;
  private readonly finishTx: (runId: string, end: EncodedEnd, now: number) => () => void;

  /** `onWriteError` hears of events that could not be recorded (they are dropped). */
  constructor(
    private readonly db: Db,
    private readonly onWriteError: (error: unknown, runIds: string[]) => void = () => {},
  ) {
    this.writer = new RunEventWriter(db.$client, onWriteError);
    const sqlite = db.$client;
    this.sql = {
      runExists: sqlite.prepare<[string], { id: string }>("select id from runs where id = ?"),
      threadOwner: sqlite.prepare<[string], { principal: string }>("select principal from threads where id = ?"),
      // A new thread; an existing one only gets a title when it has none.
      upsertThread: sqlite.prepare(
        `insert into threads (id, agent, principal, title, created_at, updated_at) values (?, ?, ?, ?, ?, ?)
         on conflict (id) do update set title = excluded.title, updated_at = excluded.updated_at
         where threads.title is null and excluded.title is not null`,
      ),
      insertRun: sqlite.prepare(
        `insert into runs (id, thread_id, agent, principal, surface, status, parent_run_id, input_state, started_at, created_at, updated_at)
         values (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)`,
      ),
      finishRun: sqlite.prepare<
        [string, string | null, string | null, number, string | null, number, number, string],
        { thread_id: string }
      >(
        "update runs set status = ?, outcome = ?, error = ?, tool_call_count = ?, usage = ?, finished_at = ?, updated_at = ? where id = ? returning thread_id",
      ),
      // Messages and state stay as they were when the run did not report them (SQL null).
      touchThread: sqlite.prepare(
        "update threads set updated_at = ?, messages = coalesce(?, messages), state = coalesce(?, state) where id = ?",
      ),
    };
    const { runExists, upsertThread, insertRun, finishRun, touchThread } = this.sql;
    this.startTx = sqlite.transaction((input: RunStart, now: number) => {
      if (runExists.get(input.runId)) throw new RunIdTaken(input.runId);
      const { surface, parentRunId, title, inputState } = startColumns(input);
      upsertThread.run(input.threadId, input.agent, input.principal, title, now, now);
      insertRun.run(input.runId, input.threadId, input.agent, input.principal, surface, parentRunId, inputState, now, now, now);
    }).immediate;
    this.finishTx = sqlite.transaction((runId: string, end: EncodedEnd, now: number) => {
      // The run's last events (and any other run's waiting ones) and its end, in one commit.
      const settle = this.writer.writeWaiting();
      const run = finishRun.get(end.status, end.outcome, end.error, end.toolCallCount, end.usage, now, now, runId);
      if (run) touchThread.run(now, end.messages, end.state, run.thread_id);
      return settle;
    });
  }

  /** Record a run as started, creating its thread when new. Throws RunIdTaken for a reused run id. */
  async start(input: RunStart): Promise<void> {
    this.startTx(input, Date.now());
  }

  /** Append events to a run's record, numbered from `firstSeq`, as one batch. */
  append(runId: string, firstSeq: number, events: readonly AGUIEvent[]): void {
    const record = recordOf(events);
    if (record) this.appendRecord(runId, firstSeq, record.count, record.json);
  }

  /**
   * Append `count` events, numbered from `firstSeq`, given as the record a RecordBatch built
   * while the events were encoded for the wire (so each is serialised once). They are written a
   * moment later (see RunEventWriter); every read here sees them at once.
   */
  appendRecord(runId: string, firstSeq: number, count: number, json: string): void {
    this.writer.append(runId, firstSeq, count, json);
  }

  /** Write the events still waiting in memory (done by every read, and before closing). */
  async flush(): Promise<void> {
    this.writer.flush();
  }

  /**
   * Record how a run ended and keep the thread's latest messages and state. A run never stays
   * "running" because its end could not be stored: when the full record fails (a state or
   * message too deeply nested to serialise, a statement the database refuses), the failure goes
   * to onWriteError, the run's events are written on their own and the run is recorded as
   * `error`, the thread keeping its previous messages and state. Throws only when even that
   * fails (the database is unusable).
   */
  async finish(runId: string, end: RunEnd): Promise<void> {
    const now = Date.now();
    try {
      const settle = this.finishTx(runId, encodeEnd(end), now);
      settle();
      return;
    } catch (error) {
      this.onWriteError(error, [runId]);
    }
    // The transaction rolled back as a whole and left every waiting event queued.
    this.writer.flush();
    this.sql.finishRun.get("error", null, endNotStored(end.status), end.toolCallCount ?? 0, null, now, now, runId);
  }

  /** Who a thread belongs to (its principal id), or undefined for a new thread. */
  async threadOwner(id: string): Promise<string | undefined> {
    return this.sql.threadOwner.get(id)?.principal;
  }

  async getThread(id: string): Promise<Thread | undefined> {
    return this.db.select().from(threads).where(eq(threads.id, id)).get();
  }

  /** Recent threads, newest activity first, without their messages and state. */
  async listThreads(filter: { principal?: string; limit?: number } = {}): Promise<ThreadSummary[]> {
    const where = filter.principal ? eq(threads.principal, filter.principal) : undefined;
    return this.db
      .select(THREAD_SUMMARY)
      .from(threads)
      .where(where)
      .orderBy(desc(threads.updatedAt))
      .limit(pageSize(filter.limit, 30, 200))
      .all();
  }

  async getRun(id: string): Promise<Run | undefined> {
    return this.db.select().from(runs).where(eq(runs.id, id)).get();
  }

  /** Runs newest first, filtered, a page at a time, without their input state. Throws InvalidCursor. */
  async listRuns(filter: RunFilter = {}): Promise<Page<RunSummary>> {
    const limit = pageSize(filter.limit, 50, 500);
    const where: Array<SQL | undefined> = [];
    if (filter.agent) where.push(eq(runs.agent, filter.agent));
    if (filter.threadId) where.push(eq(runs.threadId, filter.threadId));
    if (filter.principal) where.push(eq(runs.principal, filter.principal));
    if (filter.status) where.push(eq(runs.status, filter.status));
    where.push(afterDescending(filter.cursor, runs.startedAt, runs.id));
    const rows = this.db
      .select(RUN_SUMMARY)
      .from(runs)
      .where(and(...where))
      .orderBy(desc(runs.startedAt), desc(runs.id))
      .limit(limit + 1)
      .all();
    return toPage(rows, limit, (row) => [row.startedAt, row.id]);
  }

  /** A run's recorded events in order (those after position `afterSeq` when given). */
  async events(runId: string, afterSeq = -1): Promise<AGUIEvent[]> {
    this.writer.flush();
    const rows = this.db
      .select({ seq: runEvents.seq, events: runEvents.events })
      .from(runEvents)
      .where(and(eq(runEvents.runId, runId), rowsHolding(runEvents.seq, runId, afterSeq)))
      .orderBy(asc(runEvents.seq))
      .all();
    const out: AGUIEvent[] = [];
    for (const row of rows) {
      expandRecord(unpackTextNow(row.events)).forEach((event, i) => {
        if (row.seq + i > afterSeq) out.push(event);
      });
    }
    return out;
  }

  /**
   * Runs left "running" by a process that stopped: recorded as cancelled on start-up; resolves with their ids. SQLite only:
   * one process owns the file, so every running run is this process's previous life's. On a shared
   * PostgreSQL the same update would end other instances' live runs; there lib/db/postgres/leases.ts
   * (AbandonedRuns) ends only the runs whose owner stopped renewing its lease.
   */
  async closeAbandoned(): Promise<string[]> {
    return this.db
      .update(runs)
      .set({
        status: "cancelled",
        error: "the console stopped while the run was going",
        finishedAt: sql`${Date.now()}`,
        updatedAt: Date.now(),
      })
      .where(eq(runs.status, "running"))
      .returning({ id: runs.id })
      .all()
      .map((row) => row.id);
  }
}
