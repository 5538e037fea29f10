import { deflateRawSync } from "node:zlib";
import type Database from "better-sqlite3";

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
  /** Each batch's record entries, without the array brackets. */
  parts: string[];
  chars: number;
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
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly sqlite: Database.Database,
    /** Told about a write that failed; its events are dropped (the stream has already carried them). */
    private readonly onError: (error: unknown, runIds: string[]) => void,
  ) {
    this.insert = sqlite.prepare("insert into run_events (run_id, seq, count, events, created_at, updated_at) values (?, ?, ?, ?, ?, ?)");
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
    waiting.parts.push(record.slice(1, -1));
    waiting.chars += record.length;
    if (waiting.chars > MAX_WAITING_CHARS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), WRITE_DELAY_MS).unref();
  }

  /** Write everything waiting, in one transaction. Never throws: a failure goes to onError. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.waiting.size) return;
    const rows = [...this.waiting.values()];
    this.waiting.clear();
    const now = Date.now();
    try {
      this.sqlite.transaction(() => {
        for (const row of rows) {
          const json = `[${row.parts.join(",")}]`;
          // Records repeat themselves (ids, types, fields): long ones shrink several times deflated,
          // which costs less than writing them out. memLevel 9 deflates about twice as fast here.
          const stored = json.length > COMPRESS_FROM ? deflateRawSync(json, { level: 1, memLevel: 9 }) : json;
          this.insert.run(row.runId, row.firstSeq, row.count, stored, now, now);
        }
      })();
    } catch (error) {
      this.onError(
        error,
        rows.map((row) => row.runId),
      );
    }
  }
}
