// PostgreSQL beside SQLite (issue 17). Each console runs in a process of its own
// (bench/support/console-instance-child.ts, the node adapter over openServices), on a throw-away
// embedded PostgreSQL (or DATABASE_URL's server, a fresh database on it) or a SQLite file:
// 1. AG-UI runs (the demo agent calling two tools) one after another and 100 at once, on each
//    dialect, rounds interleaved: PostgreSQL's throughput as a share of SQLite's (target >= 0.5);
// 2. the approvals cycle (request, decide, consume, outcome) through ApprovalStore in this process,
//    on each dialect, one after another and 20 at once (target >= 0.5);
// 3. 100 concurrent runs on one PostgreSQL instance, then split over two: aggregate runs per
//    second and the instances' CPU per run (target: two at least 0.9 of one; two cores cannot show
//    a gain with the client and the database on them too);
// 4. a decision taken on instance B, heard on the inbox stream open on instance A (target: median
//    under 50 ms).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { ApprovalStore } from "../lib/approvals";
import { ApprovalRows } from "../lib/db/approvals";
import { openDatabase } from "../lib/db";
import { PgApprovalRows } from "../lib/db/postgres/approvals";
import { openPostgres } from "../lib/db/postgres/open";
import { startEmbeddedPostgres, type TestPostgresServer } from "../test/support/postgres-server";
import { startInstance, type Instance } from "./support/console-instance";
import { type BenchResult, type Figure, median } from "./support/measure";

const SEQUENTIAL_RUNS = 30;
const CONCURRENT_RUNS = 100;
const ROUNDS = 3;
/**
 * Rounds of one instance against two. One round of 100 runs takes under half a second and its
 * two/one ratio moves between 0.88 and 1.27 here, so the median is taken over 15 (over 5 it moved
 * between 0.80 and 1.00 from one bench run to the next).
 */
const SCALE_ROUNDS = 15;
const APPROVAL_CYCLES = 300;
const DECISIONS = 30;
const TARGETS = { dialectShare: 0.5, twoOverOne: 0.9, decisionMs: 50 };
/** How long the decision timing waits for a change on A's inbox stream before the bench fails. */
const STREAM_WAIT_MS = 10_000;

let seq = 0;
async function run(base: string, text: string): Promise<void> {
  seq++;
  const response = await fetch(`${base}/api/agui/demo`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({
      threadId: `pg-bench-t${seq}-${process.pid}`,
      runId: `pg-bench-r${seq}-${process.pid}`,
      messages: [{ id: `u${seq}`, role: "user", content: text }],
      tools: [],
      context: [],
    }),
  });
  const body = await response.text();
  if (response.status !== 200 || !body.includes('"RUN_FINISHED"'))
    throw new Error(`a run failed: HTTP ${response.status} ${body.slice(-300)}`);
}

const TEXT = "weather in Paris and Tokyo";

/** Runs per second of `count` runs one after another. */
async function sequential(base: string, count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await run(base, TEXT);
  return (count * 1000) / (performance.now() - started);
}

/** Runs per second of `count` runs sent at once, spread over `bases` in turn; with the instances' CPU seconds per run. */
async function concurrent(instances: Instance[], count: number): Promise<{ perSecond: number; cpuMsPerRun: number }> {
  const cpuBefore = instances.reduce((sum, i) => sum + i.cpuSeconds(), 0);
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, (_, i) => run(instances[i % instances.length]!.url, TEXT)));
  const wallMs = performance.now() - started;
  const cpu = instances.reduce((sum, i) => sum + i.cpuSeconds(), 0) - cpuBefore;
  return { perSecond: (count * 1000) / wallMs, cpuMsPerRun: (cpu * 1000) / count };
}

async function approvalCycles(store: ApprovalStore, count: number, parallel: number): Promise<number> {
  let next = 0;
  const one = async (i: number) => {
    const approval = await store.request({
      principal: "bench",
      scope: `s${i}`,
      callId: `c${i}-${seq++}`,
      tool: "refund",
      args: { i },
      surface: "agui",
    });
    await store.decide(approval.id, { approved: true, decidedBy: "bench" });
    await store.consume(approval.id, {
      scope: approval.scope,
      callId: approval.callId,
      tool: approval.tool,
      argsDigest: approval.argsDigest,
    });
    await store.recordOutcome(approval.id, { ok: true });
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await one(next++);
    }),
  );
  return (count * 1000) / (performance.now() - started);
}

/** A fresh database on the server; answers its URL. */
async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export default async function benchPostgres(): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-pg-"));
  let server: TestPostgresServer | undefined;
  const serverUrl = process.env.DATABASE_URL || (server = await startEmbeddedPostgres()).url;
  const stops: Array<() => Promise<unknown>> = [];
  const results: BenchResult[] = [];
  const add = (figures: Figure[], label: string, value: number, unit: string, target?: Figure["target"]) =>
    figures.push({ label, value, unit, ...(target && { target }) });
  try {
    const pgUrl = await freshDatabase(serverUrl, "bench_console");
    const sqlite = await startInstance({ CONSOLE_DB: path.join(dir, "bench.db") });
    stops.push(() => sqlite.stop());
    const a = await startInstance({ DATABASE_URL: pgUrl });
    stops.push(() => a.stop());
    const b = await startInstance({ DATABASE_URL: pgUrl });
    stops.push(() => b.stop());

    // 1. AG-UI, SQLite and PostgreSQL rounds interleaved.
    for (const instance of [sqlite, a, b]) await sequential(instance.url, 10);
    const seqRates = { sqlite: [] as number[], pg: [] as number[] };
    const concRates = { sqlite: [] as number[], pg: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      seqRates.sqlite.push(await sequential(sqlite.url, SEQUENTIAL_RUNS));
      seqRates.pg.push(await sequential(a.url, SEQUENTIAL_RUNS));
      concRates.pg.push((await concurrent([a], CONCURRENT_RUNS)).perSecond);
      concRates.sqlite.push((await concurrent([sqlite], CONCURRENT_RUNS)).perSecond);
    }
    const agui: Figure[] = [];
    add(agui, "SQLite: runs one after another", median(seqRates.sqlite), "runs/s");
    add(agui, "PostgreSQL: runs one after another", median(seqRates.pg), "runs/s");
    add(agui, "  PostgreSQL / SQLite", median(seqRates.pg) / median(seqRates.sqlite), "x", { min: TARGETS.dialectShare });
    add(agui, `SQLite: ${CONCURRENT_RUNS} runs at once`, median(concRates.sqlite), "runs/s");
    add(agui, `PostgreSQL: ${CONCURRENT_RUNS} runs at once`, median(concRates.pg), "runs/s");
    add(agui, "  PostgreSQL / SQLite", median(concRates.pg) / median(concRates.sqlite), "x", { min: TARGETS.dialectShare });
    results.push({
      title: `postgres: AG-UI runs ("${TEXT}": two tool calls, recorded) on each dialect, median of ${ROUNDS} rounds`,
      figures: agui,
    });

    // 2. The approvals cycle through ApprovalStore, in this process.
    const sqliteDb = openDatabase(path.join(dir, "approvals.db"));
    const pgDb = await openPostgres(await freshDatabase(serverUrl, "bench_approvals"), { maxConnections: 10 });
    stops.push(async () => (sqliteDb.close(), await pgDb.close()));
    const stores = { sqlite: new ApprovalStore(new ApprovalRows(sqliteDb.db)), pg: new ApprovalStore(new PgApprovalRows(pgDb.db)) };
    await approvalCycles(stores.sqlite, 50, 1);
    await approvalCycles(stores.pg, 50, 1);
    const cycles = { sqlite1: [] as number[], pg1: [] as number[], sqlite20: [] as number[], pg20: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      cycles.sqlite1.push(await approvalCycles(stores.sqlite, APPROVAL_CYCLES, 1));
      cycles.pg1.push(await approvalCycles(stores.pg, APPROVAL_CYCLES, 1));
      cycles.pg20.push(await approvalCycles(stores.pg, APPROVAL_CYCLES, 20));
      cycles.sqlite20.push(await approvalCycles(stores.sqlite, APPROVAL_CYCLES, 20));
    }
    const approvals: Figure[] = [];
    add(approvals, "SQLite: cycles one after another", median(cycles.sqlite1), "cycles/s");
    add(approvals, "PostgreSQL: cycles one after another", median(cycles.pg1), "cycles/s");
    add(approvals, "  PostgreSQL / SQLite", median(cycles.pg1) / median(cycles.sqlite1), "x", { min: TARGETS.dialectShare });
    add(approvals, "SQLite: 20 cycles at once", median(cycles.sqlite20), "cycles/s");
    add(approvals, "PostgreSQL: 20 cycles at once", median(cycles.pg20), "cycles/s");
    add(approvals, "  PostgreSQL / SQLite", median(cycles.pg20) / median(cycles.sqlite20), "x", { min: TARGETS.dialectShare });
    results.push({
      title: `postgres: approvals cycle (request, decide, consume, outcome) through ApprovalStore, ${APPROVAL_CYCLES} per round, median of ${ROUNDS}`,
      figures: approvals,
    });

    // 3. One PostgreSQL instance against two, 100 concurrent runs, rounds interleaved. B has served
    // only its warm-up runs so far, A the rounds of part 1 as well: B first serves as many on its
    // own, so that the two-instance rounds do not time B's JIT warming up against a warm A.
    await sqlite.stop();
    const servedByA = ROUNDS * (SEQUENTIAL_RUNS + CONCURRENT_RUNS);
    for (let served = 0; served < servedByA; served += CONCURRENT_RUNS) await concurrent([b], CONCURRENT_RUNS);
    const one: Array<{ perSecond: number; cpuMsPerRun: number }> = [];
    const two: Array<{ perSecond: number; cpuMsPerRun: number }> = [];
    for (let round = 0; round < SCALE_ROUNDS; round++) {
      one.push(await concurrent([a], CONCURRENT_RUNS));
      two.push(await concurrent([a, b], CONCURRENT_RUNS));
    }
    const scale: Figure[] = [];
    const oneRate = median(one.map((r) => r.perSecond));
    const twoRate = median(two.map((r) => r.perSecond));
    add(scale, "one instance: runs per second", oneRate, "runs/s");
    add(scale, "  its CPU per run", median(one.map((r) => r.cpuMsPerRun)), "ms");
    add(scale, "two instances: aggregate runs per second", twoRate, "runs/s");
    add(scale, "  their CPU per run (both)", median(two.map((r) => r.cpuMsPerRun)), "ms");
    add(scale, "two / one", twoRate / oneRate, "x", { min: TARGETS.twoOverOne });
    results.push({
      title: `postgres: ${CONCURRENT_RUNS} concurrent runs on one instance and on two (${os.cpus().length} cores shared with the client and PostgreSQL), median of ${SCALE_ROUNDS}`,
      figures: scale,
    });

    // 4. A decision on B heard on A's inbox stream.
    const stream = await fetch(`${a.url}/api/approvals/events`);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    // Each change the stream shows, with when its frame arrived.
    const changes: Array<{ type: string; id: string; at: number }> = [];
    const waiters: Array<() => void> = [];
    void (async () => {
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (done) return;
        const at = performance.now();
        buffer += value;
        const frames = buffer.split("\n\n");
        buffer = frames.pop()!;
        for (const frame of frames) {
          const data = frame.split("\n").find((line) => line.startsWith("data: "));
          if (!data) continue;
          const change = JSON.parse(data.slice("data: ".length)) as { type: string; approval?: { id: string } };
          if (change.approval) changes.push({ type: change.type, id: change.approval.id, at });
        }
        for (const wake of waiters.splice(0)) wake();
      }
    })();
    /** When A's stream showed the change `type` of approval `id`; rejects after STREAM_WAIT_MS without it. */
    const until = async (type: string, id: string): Promise<number> => {
      const deadline = performance.now() + STREAM_WAIT_MS;
      for (;;) {
        const seen = changes.find((change) => change.type === type && change.id === id);
        if (seen) return seen.at;
        if (performance.now() > deadline)
          throw new Error(`instance A's inbox stream did not show "${type}" of ${id} within ${STREAM_WAIT_MS} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    };
    const fromSend: number[] = [];
    const fromAnswer: number[] = [];
    for (let i = 0; i < DECISIONS + 3; i++) {
      await run(b.url, `refund order ${1000 + i} for 1 EUR`);
      const list = (await (await fetch(`${b.url}/api/approvals?status=pending&limit=1`)).json()) as { items: Array<{ id: string }> };
      const id = list.items[0]!.id;
      await until("requested", id);
      const sent = performance.now();
      const response = await fetch(`${b.url}/api/approvals/${id}/decision`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ approved: false }),
      });
      const answered = performance.now();
      if (response.status !== 200) throw new Error(`decision refused: ${response.status}`);
      const at = await until("decided", id);
      if (i >= 3) {
        fromSend.push(at - sent);
        fromAnswer.push(at - answered);
      }
    }
    await reader.cancel().catch(() => {});
    const latency: Figure[] = [];
    add(latency, "decision sent to B, heard on A: median", median(fromSend), "ms", { max: TARGETS.decisionMs });
    add(latency, "  p90", [...fromSend].sort((x, y) => x - y)[Math.floor(fromSend.length * 0.9)]!, "ms");
    add(latency, "B answered the decision, A heard it: median", median(fromAnswer), "ms");
    results.push({
      title: `postgres: a decision on instance B reaching the inbox stream on instance A (LISTEN/NOTIFY), ${DECISIONS} decisions`,
      figures: latency,
    });
    return results;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
