// The WAL checkpoint worker thread, bundled into .workers/wal-checkpoint.mjs (see
// lib/workers/worker-bundle.ts) and started by wal-checkpointer.ts. On a connection of its own it
// copies what the write-ahead log has gathered back into the database file, every intervalMs. A
// checkpoint writes and syncs megabytes: left to SQLite's automatic checkpoint, the commit that
// passed 1,000 pages ran it on the connection serving requests and held the event loop 20-60 ms.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { lowerThreadPriority } from "../workers/thread-priority";
import type { CheckpointWorkerData, CheckpointWorkerReply } from "./wal-checkpointer";

const port = parentPort;
if (!port) throw new Error("checkpoint-worker runs on a worker thread");
const { file, intervalMs } = workerData as CheckpointWorkerData;

// Background work: when this thread and the one serving requests want the same core, requests go first.
lowerThreadPriority();
const db = new Database(file, { fileMustExist: true });

/**
 * PASSIVE: copy every frame no reader still needs, without waiting for readers or writers and
 * without blocking them. The next write after a complete one starts the log from its beginning.
 */
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (error) {
    port.postMessage({ type: "error", message: error instanceof Error ? error.message : String(error) } satisfies CheckpointWorkerReply);
  }
}, intervalMs);

port.on("message", (message: unknown) => {
  if (message !== "stop") return;
  clearInterval(timer);
  db.close();
  port.close();
});
