import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { AGUIEvent, Message } from "@ag-ui/core";
import { and, asc, desc, eq, lt, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { decodeCursor, encodeCursor } from "../db/cursor";
import { runEvents, runs, threads } from "../db/schema";

/** Batches of events longer than this (in characters of JSON) are stored deflated. */
const COMPRESS_FROM = 4096;

export type Thread = typeof threads.$inferSelect;
export type Run = typeof runs.$inferSelect;
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
}

export interface RunEnd {
  status: Exclude<RunStatus, "running">;
  outcome?: Record<string, unknown>;
  error?: string;
  messages?: Message[];
  state?: unknown;
  toolCallCount?: number;
  usage?: unknown[];
}

export interface RunFilter {
  agent?: string;
  threadId?: string;
  principal?: string;
  status?: RunStatus;
  cursor?: string;
  limit?: number;
}

/** Raised when a run id is reused: AG-UI run ids are unique, a retry is a new run. */
export class RunIdTaken extends Error {
  override readonly name = "RunIdTaken";
  readonly kind = "run_id_taken";
  constructor(readonly runId: string) {
    super(`A run with id "${runId}" exists already; every run needs a new runId`);
  }
}

/** Threads, runs and every run's events, in order, for reload, replay and history. */
export class RunStore {
  private readonly insertEvent;

  constructor(private readonly db: Db) {
    this.insertEvent = db.$client.prepare("insert into run_events (run_id, seq, count, events, created_at, updated_at) values (?, ?, ?, ?, ?, ?)");
  }

  /** Record a run as started, creating its thread when new. Throws RunIdTaken for a reused run id. */
  start(input: RunStart): Run {
    const now = Date.now();
    return this.db.transaction(
      (tx) => {
        if (tx.select({ id: runs.id }).from(runs).where(eq(runs.id, input.runId)).get()) throw new RunIdTaken(input.runId);
        const thread = tx.select().from(threads).where(eq(threads.id, input.threadId)).get();
        if (!thread)
          tx.insert(threads)
            .values({ id: input.threadId, agent: input.agent, principal: input.principal, title: input.title?.slice(0, 120) ?? null, createdAt: now, updatedAt: now })
            .run();
        else if (!thread.title && input.title) tx.update(threads).set({ title: input.title.slice(0, 120), updatedAt: now }).where(eq(threads.id, input.threadId)).run();
        return tx
          .insert(runs)
          .values({
            id: input.runId,
            threadId: input.threadId,
            agent: input.agent,
            principal: input.principal,
            surface: input.surface ?? "agui",
            status: "running",
            parentRunId: input.parentRunId ?? null,
            startedAt: now,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
          .get();
      },
      { behavior: "immediate" },
    );
  }

  /** Append events to a run's record, numbered from `firstSeq`, as one batch. */
  append(runId: string, firstSeq: number, events: readonly AGUIEvent[]): void {
    this.appendEncoded(runId, firstSeq, events.map((event) => JSON.stringify(event)));
  }

  /**
   * Append events already encoded as JSON (the stream's own encoding, so each event is
   * serialised once), numbered from `firstSeq`, as one row.
   */
  appendEncoded(runId: string, firstSeq: number, encoded: readonly string[]): void {
    if (!encoded.length) return;
    const now = Date.now();
    const json = `[${encoded.join(",")}]`;
    // Streamed text repeats itself (ids, types, fields): large batches shrink ~25x deflated, which
    // costs less than writing them out; small ones stay plain JSON text.
    const stored = json.length > COMPRESS_FROM ? deflateRawSync(json, { level: 1 }) : json;
    this.insertEvent.run(runId, firstSeq, encoded.length, stored, now, now);
  }

  /** Record how a run ended and keep the thread's latest messages and state. */
  finish(runId: string, end: RunEnd): void {
    const now = Date.now();
    this.db.transaction((tx) => {
      const run = tx
        .update(runs)
        .set({
          status: end.status,
          outcome: end.outcome ?? null,
          error: end.error ?? null,
          toolCallCount: end.toolCallCount ?? 0,
          usage: end.usage ?? null,
          finishedAt: now,
          updatedAt: now,
        })
        .where(eq(runs.id, runId))
        .returning({ threadId: runs.threadId })
        .get();
      if (!run) return;
      const update: Partial<Thread> = { updatedAt: now };
      if (end.messages) update.messages = end.messages;
      if (end.state !== undefined) update.state = end.state;
      tx.update(threads).set(update).where(eq(threads.id, run.threadId)).run();
    });
  }

  getThread(id: string): Thread | undefined {
    return this.db.select().from(threads).where(eq(threads.id, id)).get();
  }

  /** Recent threads, newest activity first. */
  listThreads(filter: { principal?: string; limit?: number } = {}): Thread[] {
    const where = filter.principal ? eq(threads.principal, filter.principal) : undefined;
    return this.db
      .select()
      .from(threads)
      .where(where)
      .orderBy(desc(threads.updatedAt))
      .limit(Math.min(Math.max(filter.limit ?? 30, 1), 200))
      .all();
  }

  getRun(id: string): Run | undefined {
    return this.db.select().from(runs).where(eq(runs.id, id)).get();
  }

  /** Runs newest first, filtered, a page at a time. */
  listRuns(filter: RunFilter = {}): { items: Run[]; nextCursor?: string } {
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 500);
    const where: SQL[] = [];
    if (filter.agent) where.push(eq(runs.agent, filter.agent));
    if (filter.threadId) where.push(eq(runs.threadId, filter.threadId));
    if (filter.principal) where.push(eq(runs.principal, filter.principal));
    if (filter.status) where.push(eq(runs.status, filter.status));
    if (filter.cursor) {
      const [startedAt, id] = decodeCursor(filter.cursor, ["number", "string"]);
      where.push(or(lt(runs.startedAt, startedAt), and(eq(runs.startedAt, startedAt), lt(runs.id, id)))!);
    }
    const rows = this.db
      .select()
      .from(runs)
      .where(and(...where))
      .orderBy(desc(runs.startedAt), desc(runs.id))
      .limit(limit + 1)
      .all();
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return rows.length > limit && last ? { items, nextCursor: encodeCursor([last.startedAt, last.id]) } : { items };
  }

  /** A run's recorded events in order (those after position `afterSeq` when given). */
  events(runId: string, afterSeq = -1): AGUIEvent[] {
    const rows = this.db
      .select({ seq: runEvents.seq, events: runEvents.events })
      .from(runEvents)
      .where(eq(runEvents.runId, runId))
      .orderBy(asc(runEvents.seq))
      .all();
    const out: AGUIEvent[] = [];
    for (const row of rows) {
      const stored = row.events as string | Buffer;
      const batch = JSON.parse(typeof stored === "string" ? stored : inflateRawSync(stored).toString("utf8")) as AGUIEvent[];
      batch.forEach((event, i) => {
        if (row.seq + i > afterSeq) out.push(event);
      });
    }
    return out;
  }

  /** Runs left "running" by a process that stopped: recorded as cancelled on start-up. */
  closeAbandoned(): number {
    return this.db
      .update(runs)
      .set({ status: "cancelled", error: "the console stopped while the run was going", finishedAt: sql`${Date.now()}`, updatedAt: Date.now() })
      .where(eq(runs.status, "running"))
      .run().changes;
  }
}
