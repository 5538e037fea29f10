// No stalls: while a 5,000-operation OpenAPI import (JSON, then the same document as YAML) and 20
// streaming AG-UI runs (`/stream 2000` of the demo agent) go through the node adapter, how late the
// event loop runs (monitorEventLoopDelay, 10 ms resolution) and how long GET /api/health takes,
// polled every 10 ms. Target: no delay over 50 ms, so one request never holds every other one.
// The same runs alone come first: what the machine and the runs cost without an import (on 2
// shared cores the floor itself moves with the load average). The clients run on a worker thread,
// so the main thread's loop is the server's alone, and at a lower scheduling priority (nice 10 on
// Linux), as clients on other machines would not take the server's cores; the health poll keeps
// the normal priority, since its latency is what is measured.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { stringify as toYaml } from "yaml";
import { consoleApi } from "../lib/api";
import { loadConfig } from "../lib/config";
import { createNodeServer, listenLocal, type WebHandler } from "../lib/http/node-adapter";
import { createServices } from "../lib/services";
import { generatedDocument } from "./support/generated-openapi";
import { quantile, type BenchResult, type Figure } from "./support/measure";

const OPERATIONS = 5_000;
const RUNS = 20;
const DELTAS = 2_000;
const TARGET_MAX_MS = 50;

/**
 * The clients, on a worker thread of their own (the health poll on another): what they do (JSON.stringify of a 3 MB body,
 * uploading it, parsing 5,000 tools in the answer, reading 20 streams) must not count against the
 * server's event loop, which is all this process's main thread runs. Plain JavaScript (eval), since
 * tsx names the functions it compiles with a helper the worker does not have.
 */
const CLIENTS = `
const { parentPort, workerData } = require("node:worker_threads");
const { base, text, prefix, runs, deltas } = workerData;
// The clients stand for people on other machines: at a lower priority (Linux: this thread's own
// id), they take what the server's thread leaves of the two cores instead of half of them.
try {
  const link = require("node:fs").readlinkSync("/proc/thread-self");
  require("node:os").setPriority(Number(link.slice(link.lastIndexOf("/") + 1)), 10);
} catch {}
let seq = 0;
async function streamRun() {
  seq++;
  const body = JSON.stringify({ threadId: prefix + "t" + seq, runId: prefix + "r" + seq, protocolVersion: "1.0",
    messages: [{ id: "u" + seq, role: "user", content: "/stream " + deltas }], tools: [], context: [] });
  const response = await fetch(base + "/api/agui/demo", { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body });
  if (response.status !== 200) throw new Error("run: HTTP " + response.status);
  const reader = response.body.getReader();
  while (!(await reader.read()).done);
}
async function importDocument() {
  const response = await fetch(base + "/api/sources/openapi", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ text, options: { prefix } }) });
  if (response.status !== 201) throw new Error("import: HTTP " + response.status + ": " + (await response.text()).slice(0, 300));
  return (await response.json()).tools.length;
}
/** Until "go": a first fetch loads the worker's HTTP client, which must not count as the server's time. */
const go = new Promise((resolve) => parentPort.once("message", resolve));
(async () => {
  await fetch(base + "/api/health").then((r) => r.arrayBuffer());
  parentPort.postMessage({ ready: true });
  await go;
  const started = performance.now();
  const importing = (text === undefined ? Promise.resolve(0) : importDocument()).then((tools) => ({ tools, ms: performance.now() - started }));
  const running = Promise.all(Array.from({ length: runs }, streamRun)).then(() => performance.now() - started);
  const [imported, runsMs] = await Promise.all([importing, running]);
  parentPort.postMessage({ importMs: imported.ms, tools: imported.tools, runsMs });
})().catch((error) => parentPort.postMessage({ error: String(error && error.stack || error) }));
`;

/** GET /api/health every 10 ms until told to stop, on a thread of its own (the clients' work would delay its timings); answers the latencies. */
const HEALTH_POLL = `
const { parentPort, workerData } = require("node:worker_threads");
let busy = true;
let going;
const go = new Promise((resolve) => (going = resolve));
parentPort.on("message", (message) => (message === "go" ? going() : (busy = false)));
(async () => {
  // Untimed: the first fetch loads the worker's HTTP client.
  await fetch(workerData.base + "/api/health").then((r) => r.arrayBuffer());
  parentPort.postMessage({ ready: true });
  await go;
  const health = [];
  while (busy) {
    const started = performance.now();
    await fetch(workerData.base + "/api/health").then((r) => r.arrayBuffer());
    health.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  parentPort.postMessage({ health });
})().catch((error) => parentPort.postMessage({ error: String(error && error.stack || error) }));
`;

interface Measured {
  delayP99: number;
  delayMax: number;
  health: number[];
  importMs: number;
  tools: number;
  runsMs: number;
}

/**
 * One import of `text` (none without it) beside RUNS streaming runs, with the loop delay and health
 * latency meanwhile. Both workers start, and make a first untimed request, before measuring begins.
 */
async function measure(base: string, text: string | undefined, prefix: string): Promise<Measured> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const poll = new Worker(HEALTH_POLL, { eval: true, workerData: { base } });
  const clients = new Worker(CLIENTS, { eval: true, workerData: { base, text, prefix, runs: RUNS, deltas: DELTAS } });
  const answer = <T>(worker: Worker) =>
    new Promise<T & { error?: string }>((resolve, reject) => worker.once("message", resolve).once("error", reject)).then((reply) => {
      if (reply.error) throw new Error(reply.error);
      return reply;
    });
  try {
    await Promise.all([answer(poll), answer(clients)]);
    delay.enable();
    poll.postMessage("go");
    clients.postMessage("go");
    const load = await answer<Omit<Measured, "delayP99" | "delayMax" | "health">>(clients);
    delay.disable();
    poll.postMessage("stop");
    const { health } = await answer<{ health: number[] }>(poll);
    health.sort((a, b) => a - b);
    return { ...load, health, delayP99: delay.percentile(99) / 1e6, delayMax: delay.max / 1e6 };
  } finally {
    delay.disable();
    await Promise.all([clients.terminate(), poll.terminate()]);
  }
}

function figures(format: string, bytes: number, m: Measured): Figure[] {
  return [
    { label: `${format}: event-loop delay, p99`, value: m.delayP99, unit: "ms", target: { max: TARGET_MAX_MS } },
    { label: `${format}: event-loop delay, max`, value: m.delayMax, unit: "ms", target: { max: TARGET_MAX_MS } },
    {
      label: `${format}: GET /api/health every 10 ms (${m.health.length} polls), p99`,
      value: quantile(m.health, 0.99),
      unit: "ms",
      target: { max: TARGET_MAX_MS },
    },
    { label: `${format}: GET /api/health, max`, value: m.health.at(-1)!, unit: "ms", target: { max: TARGET_MAX_MS } },
    { label: `${format}: import of ${(bytes / 1024).toFixed(0)} KB, wall`, value: m.importMs, unit: "ms" },
    { label: `${format}: tools the import made`, value: m.tools, unit: "", target: { min: OPERATIONS, max: OPERATIONS } },
    { label: `${format}: ${RUNS} runs of /stream ${DELTAS} beside it, wall`, value: m.runsMs, unit: "ms" },
  ];
}

export default async function benchStalls(): Promise<BenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-"));
  const services = createServices(
    loadConfig({
      CONSOLE_DB: path.join(dir, "bench.db"),
      CONSOLE_STATE_DIR: dir,
      LOG_LEVEL: "silent",
      AGENT_STREAM_DELAY_MS: "0",
      SEED_DEMO: "0",
    }),
  );
  const api = consoleApi(services);
  const server = createNodeServer([
    { method: "POST", path: "/api/agui/[agent]", handler: api.agui.run as WebHandler },
    { method: "GET", path: "/api/health", handler: api.health.get as WebHandler },
    { method: "POST", path: "/api/sources/openapi", handler: api.sources.importDocument as WebHandler },
  ]);
  const base = await listenLocal(server);
  try {
    const document = generatedDocument(OPERATIONS);
    const json = JSON.stringify(document);
    const yaml = toYaml(document);
    // Warm every path once (and start the import worker) before measuring.
    await measure(base, JSON.stringify(generatedDocument(2)), "warm_");
    const alone = await measure(base, undefined, "");
    const fromJson = await measure(base, json, "json_");
    const fromYaml = await measure(base, yaml, "yaml_");
    return {
      title: `stalls: a ${OPERATIONS.toLocaleString("en")}-operation OpenAPI import and ${RUNS} streaming runs at once, node adapter`,
      figures: [
        { label: `no import, ${RUNS} runs alone: event-loop delay, p99`, value: alone.delayP99, unit: "ms" },
        { label: `no import, ${RUNS} runs alone: event-loop delay, max`, value: alone.delayMax, unit: "ms" },
        { label: `no import, ${RUNS} runs alone: GET /api/health, max`, value: alone.health.at(-1)!, unit: "ms" },
        ...figures("JSON", Buffer.byteLength(json), fromJson),
        ...figures("YAML", Buffer.byteLength(yaml), fromYaml),
      ],
    };
  } finally {
    server.close();
    services.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
