import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The niceness of a thread doing background work: the thread serving requests (0) wins a contended core about nine times in ten. */
export const BACKGROUND_NICENESS = 10;

/**
 * Lower the calling thread's scheduling priority to `niceness`, on Linux (a thread has an id of its
 * own there, which setpriority takes); elsewhere, or if refused, the thread keeps its priority. A
 * worker thread preparing a large document calls it, so that when it and the thread serving
 * requests want the same core, requests go first. Lowering a priority needs no privilege.
 */
export function lowerThreadPriority(niceness = BACKGROUND_NICENESS): void {
  try {
    // "/proc/<pid>/task/<tid>"
    const tid = Number(path.basename(fs.readlinkSync("/proc/thread-self")));
    if (Number.isSafeInteger(tid) && tid > 0) os.setPriority(tid, niceness);
  } catch {
    // No /proc/thread-self (not Linux) or not permitted: nothing to do.
  }
}
