import fs from "node:fs";

const CLOCK_TICKS = 100;

/** CPU seconds process `pid` has used so far (user + system, all its threads; Linux, 10 ms ticks). */
export function processCpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
