import { deflateRawSync } from "node:zlib";
import type Database from "better-sqlite3";
import { utf8Bytes } from "../streams/utf8";

/** How long appended events may wait in memory before they are written; a crash loses at most this. */
const WRITE_DELAY_MS = 100;
/** A run's waiting events are written at once when their record grows past this many characters. */
const MAX_WAITING_CHARS = 256 * 1024;
/** Rows longer than this (in characters of JSON) are stored deflated. */
const COMPRESS_FROM = 16 * 1024;

/** One run's events waiting to be written: consecutive batches, numbered from firstSeq. */
interface Waiting {
  runId: string;
  firstSeq: number;
  count: number;
  /** Each batch's record entries, without the array brackets, while the row is short. */
  parts: string[];
  chars: number;
  /**
   * Once the row is long enough to be stored deflated, its entries as UTF-8 instead of `parts`
   * (with the commas between them), each batch's added as it comes.
   */
  bytes?: Buffer[];
}

/**
 * Writes runs' event records (RecordBatch JSON) a little behind the stream. Appended batches wait
 * in memory, at most WRITE_DELAY_MS or MAX_WAITING_CHARS of one run, then go to SQLite in one
 * transaction, a run's consecutive batches as one row. SQLite's WAL keeps a copy of every page a
 * transaction changes, so a row per batch, each its own transaction, wrote the same pages dozens
 * of times per run and forced a checkpoint every few runs. Readers call `flush()` first, so within
 * the process nobody sees the delay.
 */
export class RunEventWriter {
  private readonly waiting = new Map<string, Waiting>();
  private readonly insert: Database.Statement;
  /** The insert in a savepoint: better-sqlite3 runs a nested transaction as SAVEPOINT ... RELEASE. */
  private readonly savepoint: (runId: string, firstSeq: number, count: number, stored: string | Buffer, now: number) => void;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly sqlite: Database.Database,
    /** Told about a write that failed; its events are dropped (the stream has already carried them). */
    private readonly onError: (error: unknown, runIds: string[]) => void,
  ) {
    this.insert = sqlite.prepare("insert into run_events (run_id, seq, count, events, created_at, updated_at) values (?, ?, ?, ?, ?, ?)");
    this.savepoint = sqlite.transaction((runId: string, firstSeq: number, count: number, stored: string | Buffer, now: number) => {
      this.insert.run(runId, firstSeq, count, stored, now, now);
    });
  }

  /** Queue `count` events of a run, numbered from `firstSeq`, given as a RecordBatch record (a JSON array). */
  append(runId: string, firstSeq: number, count: number, record: string): void {
    if (!count) return;
    let waiting = this.waiting.get(runId);
    if (waiting && waiting.firstSeq + waiting.count !== firstSeq) {
      this.flush();
      waiting = undefined;
    }
    if (!waiting) {
      waiting = { runId, firstSeq, count: 0, parts: [], chars: 0 };
      this.waiting.set(runId, waiting);
    }
    waiting.count += count;
    waiting.chars += record.length;
    const entries = record.slice(1, -1);
    if (waiting.bytes) waiting.bytes.push(COMMA, utf8Bytes(entries));
    else {
      waiting.parts.push(entries);
      if (waiting.chars > COMPRESS_FROM) {
        waiting.bytes = [utf8Bytes(waiting.parts.join(","))];
        waiting.parts = [];
      }
    }
    if (waiting.chars > MAX_WAITING_CHARS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), WRITE_DELAY_MS).unref();
  }

  /**
   * Write everything waiting, in one transaction. Never throws: a failure goes to onError. Each
   * run's row is written in its own savepoint, so a row the database refuses (a constraint, a
   * trigger) is dropped alone and the other runs' rows are still committed.
   */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.waiting.size) return;
    let settle: () => void;
    try {
      settle = this.sqlite.transaction(() => this.writeWaiting())();
    } catch (error) {
      // The commit itself failed: nothing of this flush was stored.
      const runIds = [...this.waiting.keys()];
      this.waiting.clear();
      this.onError(error, runIds);
      return;
    }
    settle();
  }

  /**
   * Write every waiting row inside the caller's open transaction, each run's row in its own
   * savepoint. Nothing leaves the queue here: the returned function, to be called once the
   * caller's transaction has committed, removes what was written and drops (and reports) the rows
   * the database refused. When the caller's transaction rolls back instead, the caller simply does
   * not call it, and every row stays queued for the next write.
   */
  writeWaiting(): () => void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const written: Waiting[] = [];
    const refused: Array<{ row: Waiting; error: unknown }> = [];
    const now = Date.now();
    for (const row of this.waiting.values()) {
      try {
        this.writeRow(row, now);
        written.push(row);
      } catch (error) {
        refused.push({ row, error });
      }
    }
    return () => {
      for (const row of [...written, ...refused.map((r) => r.row)]) {
        // Only the very rows written: appends made since then start a row of their own.
        if (this.waiting.get(row.runId) === row) this.waiting.delete(row.runId);
      }
      for (const { row, error } of refused) this.onError(error, [row.runId]);
    };
  }

  /** One row, in a savepoint of the open transaction (undone alone if the insert fails). */
  private writeRow(row: Waiting, now: number): void {
    // Records repeat themselves (ids, types, fields): long ones shrink several times deflated,
    // which costs less than writing them out. memLevel 9 deflates about twice as fast here. The
    // deflated row is put together from its parts' bytes: joining the parts into one string first
    // and encoding that string cost twice as much as the compression (bench/agui.ts).
    const stored = row.bytes
      ? deflateRawSync(Buffer.concat([OPEN, ...row.bytes, CLOSE]), { level: 1, memLevel: 9 })
      : `[${row.parts.join(",")}]`;
    this.savepoint(row.runId, row.firstSeq, row.count, stored, now);
  }
}

const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");
