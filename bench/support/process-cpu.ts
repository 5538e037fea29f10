import fs from "node:fs";

const CLOCK_TICKS = 100;

/**
 * CPU seconds process `pid` has used so far (user + system, all its threads; Linux). Summed from
 * each thread's schedstat, in nanoseconds: /proc/PID/stat counts in 10 ms ticks, which over a
 * bench's 21 runs of ~10 ms each read a route's CPU only to about 0.5 ms a run. A thread that has
 * exited no longer has a schedstat and its time drops out; a server's threads (libuv's pool,
 * V8's, a worker it keeps) live as long as it does. A thread's last slice is added when it stops
 * running (or at the next tick), so read a process while it waits, as the benches do between
 * runs. Falls back to the ticks where the kernel keeps no schedstat.
 */
export function processCpuSeconds(pid: number): number {
  try {
    let ns = 0;
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // The thread exited between the listing and the read.
      }
    }
    if (ns > 0) return ns / 1e9;
  } catch {
    // No task list or no schedstat: the ticks below.
  }
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
