import { Worker } from "node:worker_threads";

/** A worker thread running the TypeScript module at `entry`, with `data` as its workerData. */
export function startTsWorker(entry: URL, data: Record<string, unknown>): Worker {
  return new Worker(new URL("./ts-worker-entry.mjs", import.meta.url), { workerData: { ...data, entry: entry.href } });
}
