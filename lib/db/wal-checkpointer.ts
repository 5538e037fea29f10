import fs from "node:fs";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { workerBundle } from "../workers/worker-bundle";

/** How often the worker checkpoints once it runs. */
export const CHECKPOINT_INTERVAL_MS = 250;

/**
 * The log's size at which the worker starts: a quarter of where SQLite's own automatic checkpoint
 * holds it. That checkpoint runs on the commit that brings the log to 1,000 pages, and the log then
 * starts over in the same file, so under commits of a few pages the file stays just over 1,000
 * frames of 4,120 bytes (4.13 MB) for good. At 4 MiB, the threshold this had, steady writers (the
 * runs of `npm run bench -- agui`) never reached it, and a 1,000-page checkpoint held the loop
 * 17-18 ms every 4 MB written.
 */
export const START_AT_WAL_BYTES = 1024 * 1024;

/** How often the log's size is looked at until the worker starts. */
const WATCH_INTERVAL_MS = 1000;

/**
 * The automatic checkpoint left on the serving connection while the worker runs: a backstop that
 * bounds the log (about 64 MB) should the worker fall far behind. SQLite's default, 1,000 pages,
 * comes back if the worker cannot start or fails.
 */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 16_000;
const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export interface CheckpointWorkerData {
  file: string;
  intervalMs: number;
}

export type CheckpointWorkerReply = { type: "error"; message: string };

export interface WalCheckpointerOptions {
  intervalMs?: number;
  startAtBytes?: number;
  /** Hears a worker that could not start or failed (the connection's own checkpoints are back on then). */
  onError?: (error: Error) => void;
}

/**
 * Checkpoints of a SQLite database in WAL mode, run on a worker thread instead of by the commit
 * that happens to pass 1,000 pages of log. A database that never writes much never starts one:
 * the log's size is looked at every second (an asynchronous stat), and the worker starts once it
 * reaches `startAtBytes`. Until then, and whenever the worker is gone, SQLite's automatic
 * checkpoint is on as before.
 */
export class WalCheckpointer {
  private worker: Worker | undefined;
  private watch: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly intervalMs: number;
  private readonly startAtBytes: number;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly file: string,
    private readonly options: WalCheckpointerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? CHECKPOINT_INTERVAL_MS;
    this.startAtBytes = options.startAtBytes ?? START_AT_WAL_BYTES;
    this.watch = setInterval(() => void this.look(), WATCH_INTERVAL_MS).unref();
  }

  /** Whether the worker runs. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Stop watching and stop the worker (it closes its connection). Safe to call twice. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.watch);
    this.watch = undefined;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) worker.postMessage("stop");
  }

  private async look(): Promise<void> {
    const size = await fs.promises.stat(`${this.file}-wal`).then(
      (stats) => stats.size,
      () => 0,
    );
    if (this.stopped || this.worker || size < this.startAtBytes) return;
    clearInterval(this.watch);
    this.watch = undefined;
    await this.start();
  }

  private async start(): Promise<void> {
    let worker: Worker;
    try {
      worker = new Worker(await workerBundle("wal-checkpoint"), {
        workerData: { file: this.file, intervalMs: this.intervalMs } satisfies CheckpointWorkerData,
      });
    } catch (error) {
      this.options.onError?.(error as Error);
      return;
    }
    if (this.stopped) {
      void worker.terminate();
      return;
    }
    worker.unref();
    this.worker = worker;
    this.sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      void worker.terminate();
      if (this.sqlite.open) this.sqlite.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES}`);
      this.options.onError?.(error);
    };
    worker.on("message", (reply: CheckpointWorkerReply) => fail(new Error(`WAL checkpoint failed: ${reply.message}`)));
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`The WAL checkpoint worker stopped (exit code ${code})`)));
  }
}
