import type { Statement } from "better-sqlite3";
import { and, desc, eq, sql } from "drizzle-orm";
import type { CallKey, CallRecord } from "../execution/call-record";
import type { ToolResult } from "../execution/result";
import type { Db } from "./connection";
import { pageSize } from "./paging";
import { callResults } from "./schema";

/** A completed call of a tool as its history lists it. */
export interface PastCall {
  callId: string;
  principal: string;
  /** The scope the call id was unique in: "console:try" for the console's Try it, a run id for agent calls. */
  scope: string;
  args: Record<string, unknown> | null;
  result: ToolResult;
  durationMs: number;
  pinned: boolean;
  createdAt: number;
}

export interface PastCallFilter {
  /** Only calls made by this principal (everyone's when absent). */
  principal?: string;
  /** 1 to 200, default 50. */
  limit?: number;
}

/**
 * The call record with a tool's history on top: what the console's tool pages and API read. The
 * SQLite CallResults and the PostgreSQL PgCallResults implement it.
 */
export interface CallResultStore extends CallRecord {
  /** Recent calls of `tool`: pinned ones first, then newest first. */
  recent(tool: string, filter?: PastCallFilter): Promise<PastCall[]>;
  /**
   * Pin or unpin the calls of `tool` with this call id (of `principal` only, when given).
   * Resolves with how many records changed: 0 means there is no such call.
   */
  setPinned(tool: string, callId: string, pinned: boolean, principal?: string): Promise<number>;
}

/**
 * Options of the SQLite call_results table: the executor's memo of completed calls (a call retried or replayed with
 * the same key is answered from here and never runs twice), and each tool's recent calls to list,
 * pin and run again.
 */
export interface CallResultsOptions {
  /**
   * Write records a moment behind (all those of one turn of the event loop in one transaction)
   * instead of one commit per call: what `get` answers is the same, since records not yet written
   * are answered from memory. A process that dies in that moment loses those records (a replay of
   * such a call would run it again), as it would lose a call that finished just before the write.
   */
  writeBehind?: boolean;
  /**
   * Written behind, a commit comes at most this often: records of a call after a quiet spell are
   * written in the next turn of the event loop, those of a busy console gather until this long after
   * the last commit. 0 (the default) commits every turn that put records.
   */
  commitEveryMs?: number;
  /** Hears a batch that could not be written (the database refused it); the records are dropped. */
  onError?: (error: unknown, records: number) => void;
}

type InsertRow = [string, string, string, string, string, string | null, string, number, number, number];

/**
 * The call record and history in SQLite. The methods are asynchronous to share CallResultStore with
 * PostgreSQL, but their bodies are the synchronous statements they always were: each reads or writes
 * before returning its promise.
 */
export class CallResults implements CallResultStore {
  // get and put sit on every call's path: raw statements compiled once, without the query builder
  // (which cost as much as the insert itself, measured by `npm run bench executor`).
  private readonly find: Statement<[string, string, string, string, string], { result: string }>;
  private readonly insert: Statement<[string, string, string, string, string, string | null, string, number, number, number]>;

  /** Records waiting for the next write, by call key; their result as stored (JSON text) is index 6. */
  private readonly pending = new Map<string, InsertRow>();
  /** Cancels the write scheduled for the records waiting, if one is. */
  private cancelScheduled: (() => void) | undefined;
  /** When the last batch was written (performance.now()). */
  private lastCommit = -Infinity;
  private readonly insertMany: (rows: InsertRow[]) => void;

  constructor(
    private readonly db: Db,
    private readonly options: CallResultsOptions = {},
  ) {
    this.find = db.$client.prepare(
      "select result from call_results where principal = ? and scope = ? and call_id = ? and tool = ? and args_digest = ?",
    );
    this.insert = db.$client.prepare(
      `insert into call_results (principal, scope, call_id, tool, args_digest, args, result, duration_ms, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
    );
    this.insertMany = db.$client.transaction((rows: InsertRow[]) => {
      for (const row of rows) this.insert.run(...row);
    });
  }

  async get(key: CallKey): Promise<ToolResult | undefined> {
    const waiting = this.pending.get(keyText(key));
    if (waiting) return JSON.parse(waiting[6]) as ToolResult;
    const row = this.find.get(key.principal, key.scope, key.callId, key.tool, key.argsDigest);
    return row ? (JSON.parse(row.result) as ToolResult) : undefined;
  }

  /**
   * Record a completed call; true when this result is the one kept. Written behind, a record is
   * compared with those waiting and not with the table: what the table already holds is answered by
   * `get`, which the executor reads first, and in one process a call is only running once (the
   * executor joins a repeat to the running call). Two processes writing one file could both hear
   * true, and the table keeps the first write.
   */
  async put(key: CallKey, result: ToolResult, durationMs: number, args?: Record<string, unknown>): Promise<boolean> {
    const now = Date.now();
    const row: InsertRow = [
      key.principal,
      key.scope,
      key.callId,
      key.tool,
      key.argsDigest,
      args ? JSON.stringify(args) : null,
      JSON.stringify(result),
      Math.round(durationMs),
      now,
      now,
    ];
    if (!this.options.writeBehind) return this.insert.run(...row).changes === 1;
    const text = keyText(key);
    // The first record of a call stays, as "on conflict do nothing" keeps it in the table.
    if (this.pending.has(text)) return false;
    this.pending.set(text, row);
    this.cancelScheduled ??= this.scheduleFlush();
    return true;
  }

  /** A write of the records waiting in the next turn, or once commitEveryMs has passed since the last write. */
  private scheduleFlush(): () => void {
    const wait = this.lastCommit + (this.options.commitEveryMs ?? 0) - performance.now();
    if (wait <= 0) {
      const immediate = setImmediate(() => this.flush());
      return () => clearImmediate(immediate);
    }
    const timer = setTimeout(() => this.flush(), wait);
    return () => clearTimeout(timer);
  }

  /** Write the records still waiting (write-behind); at once, in one transaction. */
  flush(): void {
    this.cancelScheduled?.();
    this.cancelScheduled = undefined;
    if (!this.pending.size) return;
    const rows = [...this.pending.values()];
    this.pending.clear();
    this.lastCommit = performance.now();
    try {
      this.insertMany(rows);
    } catch (error) {
      this.options.onError?.(error, rows.length);
    }
  }

  /** Recent calls of `tool`: pinned ones first, then newest first (the later insert first within a millisecond). */
  async recent(tool: string, filter: PastCallFilter = {}): Promise<PastCall[]> {
    this.flush();
    const where = [eq(callResults.tool, tool)];
    if (filter.principal !== undefined) where.push(eq(callResults.principal, filter.principal));
    return this.db
      .select({
        callId: callResults.callId,
        principal: callResults.principal,
        scope: callResults.scope,
        args: callResults.args,
        result: callResults.result,
        durationMs: callResults.durationMs,
        pinned: callResults.pinned,
        createdAt: callResults.createdAt,
      })
      .from(callResults)
      .where(and(...where))
      .orderBy(desc(callResults.pinned), desc(callResults.createdAt), desc(sql`rowid`))
      .limit(pageSize(filter.limit, 50, 200))
      .all()
      .map((row) => ({ ...row, result: row.result as ToolResult }));
  }

  /**
   * Pin or unpin the calls of `tool` with this call id (of `principal` only, when given).
   * Returns how many records changed: 0 means there is no such call.
   */
  async setPinned(tool: string, callId: string, pinned: boolean, principal?: string): Promise<number> {
    this.flush();
    const where = [eq(callResults.tool, tool), eq(callResults.callId, callId)];
    if (principal !== undefined) where.push(eq(callResults.principal, principal));
    return this.db
      .update(callResults)
      .set({ pinned, updatedAt: Date.now() })
      .where(and(...where))
      .run().changes;
  }
}

/** A call key as one string, unambiguous whatever its parts hold (a client chooses some of them). */
function keyText(key: CallKey): string {
  return JSON.stringify([key.principal, key.scope, key.callId, key.tool, key.argsDigest]);
}
