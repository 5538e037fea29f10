import path from "node:path";
import { ApprovalStore } from "../lib/approvals";
import { openDatabase } from "../lib/db";
import { Executor } from "../lib/execution";
import { jsonDigest } from "../lib/json/canonical";
import { ToolRegistry } from "../lib/tools";
import { benchDir, type BenchResult, type Figure, median, sampleMicros } from "./support/measure";
import { CallResults } from "../lib/db/call-results";
import { recordWriteMicros } from "./support/record-writes";

const CALLS = 10_000;

/** Executor overhead over a direct call of a no-op tool, with and without the call record; one approval's life. */
export default async function executorBench(): Promise<BenchResult> {
  const handle = openDatabase(path.join(benchDir(), "bench.db"));
  try {
    const registry = new ToolRegistry(handle.db);
    const noop = (args: Record<string, unknown>) => ({ n: args.n ?? null });
    await registry.add(
      { name: "noop", description: "Does nothing", inputSchema: { type: "object", properties: { n: { type: "integer" } } } },
      noop,
    );
    const args = { n: 1 };
    const ctx = { principal: "bench", scope: "bench", runId: "bench", surface: "script" as const };

    const direct = median(await sampleMicros(CALLS, () => noop(args)));

    const bare = new Executor({ registry });
    const withoutRecord = median(await sampleMicros(CALLS, (i) => bare.call("noop", args, { callId: `a${i}`, ctx })));

    const recorded = new Executor({ registry, record: new CallResults(handle.db) });
    const withRecord = median(await sampleMicros(CALLS, (i) => recorded.call("noop", args, { callId: `b${i}`, ctx })));
    const replayed = median(await sampleMicros(CALLS, (i) => recorded.call("noop", args, { callId: `b${i}`, ctx }), 0));

    // Where the record's cost goes: its lookup and insert alone, and the same insert without drizzle.
    const record = new CallResults(handle.db);
    const recordAlone = median(
      await sampleMicros(CALLS, async (i) => {
        const key = { principal: "bench", scope: "bench", callId: `d${i}`, tool: "noop", argsDigest: jsonDigest(args) };
        if (!(await record.get(key))) await record.put(key, { ok: true, value: { n: 1 } }, 0);
      }),
    );
    const rawInsert = handle.sqlite.prepare(
      "insert into call_results (principal, scope, call_id, tool, args_digest, result, duration_ms, created_at, updated_at) values (?, ?, ?, ?, ?, ?, 0, ?, ?) on conflict do nothing",
    );
    const digest = jsonDigest(args);
    const sqliteAlone = median(
      await sampleMicros(CALLS, (i) =>
        rawInsert.run("bench", "bench", `e${i}`, "noop", digest, '{"ok":true,"value":{"n":1}}', Date.now(), Date.now()),
      ),
    );

    // Records written behind, as the console writes them: CPU per record when each commit holds 1,
    // 16 (what one turn of 16 clients' calls puts) or 256 records (what commitEveryMs gathers).
    const behind = new CallResults(handle.db, { writeBehind: true });
    const perCommit = [1, 16, 256].map((batch) => ({ batch, micros: recordWriteMicros(behind, batch, `w${batch}`) }));

    const store = new ApprovalStore(handle.db);
    const tool = "noop";
    const argsDigest = jsonDigest(args);
    const approvalLife = median(
      await sampleMicros(CALLS, async (i) => {
        const binding = { scope: "bench", callId: `c${i}`, tool, argsDigest };
        const approval = await store.request({ principal: "bench", ...binding, args, surface: "script" });
        await store.decide(approval.id, { approved: true, decidedBy: "bench" });
        await store.consume(approval.id, binding);
      }),
    );

    const figures: Figure[] = [
      { label: "direct call of the no-op (median)", value: direct, unit: "µs" },
      { label: "executor, no call record (median)", value: withoutRecord, unit: "µs" },
      { label: "  added per call", value: withoutRecord - direct, unit: "µs" },
      { label: "executor, with call record (median)", value: withRecord, unit: "µs" },
      { label: "  added per call", value: withRecord - direct, unit: "µs", target: { max: 100 } },
      { label: "replay answered from the record (median)", value: replayed, unit: "µs" },
      { label: "  record lookup + insert alone (median)", value: recordAlone, unit: "µs" },
      { label: "  raw SQLite insert of a record row (median)", value: sqliteAlone, unit: "µs" },
      ...perCommit.map(({ batch, micros }) => ({
        label: `  written behind, ${batch} record${batch === 1 ? "" : "s"} a commit: CPU per record`,
        value: micros,
        unit: "µs",
      })),
      { label: "approval request + decide + consume (median)", value: approvalLife / 1000, unit: "ms", target: { max: 1 } },
    ];
    return { title: `executor (${CALLS.toLocaleString("en")} calls each, SQLite file in WAL mode, synchronous=NORMAL)`, figures };
  } finally {
    handle.close();
  }
}
