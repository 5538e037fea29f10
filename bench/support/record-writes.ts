// The call record's write timed alone, as the console makes it: records put and written behind, a
// given number to a commit (the executor and MCP benches).
import type { CallResults } from "../../lib/db/call-results";
import { median } from "./measure";

/** CPU microseconds per record put into `records` (written behind) and committed `perCommit` at a time: the median of 5 rounds of 4,096. */
export function recordWriteMicros(records: CallResults, perCommit: number, tag: string): number {
  const result = { ok: true as const, value: {} };
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = process.cpuUsage();
    for (let i = 0; i < 4096; i++) {
      void records.put(
        { principal: "bench", scope: "bench", callId: `${tag}-${round}-${i}`, tool: "noop", argsDigest: "d" },
        result,
        0,
        {},
      );
      if ((i + 1) % perCommit === 0) records.flush();
    }
    records.flush();
    const used = process.cpuUsage(started);
    rounds.push((used.user + used.system) / 4096);
  }
  return median(rounds);
}
