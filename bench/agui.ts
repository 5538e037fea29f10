// The AG-UI endpoint over a bare node:http server (lib/http/node-adapter.ts, no Next.js):
// 1. a run streaming 20,000 text deltas: events per second, and the bare route's time as a share of
//    the endpoint's (target ≥ 0.85). The bare route takes the same agent's events batch by batch
//    and writes each batch as `data: <json>\n\n` frames with the same encoder, nothing else; so the
//    share is the price of what the endpoint adds (auth, input parsing, the bridge's bookkeeping,
//    recording every event in SQLite, the web-stream response). The agent is a replay agent
//    handing over prepared events as fast as the demo agent's pacing allows; the demo agent's own
//    run (its scripted model and AgentRun included) is printed beside it, and so is a floor: a
//    route writing bytes encoded beforehand (no encoding at all). A third route is the bare one
//    plus only what the endpoint cannot leave out, with the endpoint's own parts (the run, its
//    compact record and its end in SQLite; the frames as bytes, as a web Response carries them):
//    bare / that route is the best share the endpoint could reach with nothing else to do; the
//    same route with the record built but stored nowhere parts building it from storing it. A last
//    route is the endpoint itself over a run store that keeps nothing: bare / that route is the
//    share the endpoint would have were its storage free. And the bare route's work written as a
//    web handler (a Request in, a ReadableStream of bytes out, on the same node adapter): bare /
//    that route is what the web-standard request and stream cost alone, the least any Next.js
//    route handler pays. The endpoint, the bare route and those four routes each run in a process
//    of their own (see ./support/served-handler.ts), which prints its CPU per run; the clients and
//    the floor run here. The endpoint, the bare route, the recording route and the storeless
//    endpoint then serve a run of 10 deltas, turn about: what each costs a request, apart from
//    what it costs an event;
// 2. median time to the first byte of RUN_STARTED on loopback over 50 runs (target < 30 ms);
// 3. 100 concurrent runs: no error, resident memory growth < 200 MB.
// Then the same endpoint through the production build's Next.js server (scripts/server.mjs, as
// `npm start` serves it; skipped without a build), in the same run: the demo agent's /stream
// 20000 through Next and through the node adapter in a process of its own (as Next has), turn
// about (Next at least 0.7 of the adapter's rate), and the time to RUN_STARTED's first byte through
// Next against that of an empty route of the same build (within 1.5x).
// A miss is reported, never an exit code: timings are not tests.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AGUIEvent, Message, RunAgentInput } from "@ag-ui/core";
import { EventType } from "@ag-ui/core";
import type { Agent } from "../lib/agents";
import { consoleApi } from "../lib/api";
import { LOCAL_PRINCIPAL } from "../lib/auth";
import { createNodeServer, listenLocal, type WebHandler } from "../lib/http/node-adapter";
import { SSE_HEADERS } from "../lib/http/sse";
import { AguiBridge } from "../lib/integrations/agui/bridge";
import { EventJsonEncoder } from "../lib/runs/event-json";
import { RecordBatch } from "../lib/runs/record-batch";
import type { Services } from "../lib/services";
import { EventQueue } from "../lib/streams/event-queue";
import { utf8Bytes } from "../lib/streams/utf8";
import { EMPTY_ROUTE } from "./support/bench-routes";
import { hasBuild, startBuiltConsole } from "./support/built-console";
import { DiscardingRunStore } from "./support/discarding-run-store";
import { startInstance } from "./support/console-instance";
import type { BenchResult, Figure } from "./support/measure";
import { throwAwayServices } from "./support/noop-services";
import { serveInChild, type HandlerFactory, type ServedHandler } from "./support/served-handler";

const DELTAS = 20_000;
/**
 * Deltas of the short run timed on the same three routes: what each route costs a request whatever
 * its length (auth, parsing, the run's row and end, the response's machinery), apart from what it
 * costs an event.
 */
const SHORT_DELTAS = 10;
const SHORT_ROUNDS = 200;
const SHORT_WARM_UP_ROUNDS = 20;
/**
 * Runs of each route before the timed rounds. V8 compiles the endpoint's code over its first few
 * dozen runs: its process spent 23.8 ms of CPU a run over the 21 runs after 5 warm-up runs, 14.8
 * after 30 and 13.3 after 100, while the bare route's stayed at 8-10 ms (one process per route, a
 * client in another). Fewer rounds timed the compiler, not the steady state a server runs in.
 */
const WARM_UP_ROUNDS = 40;
const THROUGHPUT_ROUNDS = 21;
const DEMO_ROUNDS = 5;
const TTFB_RUNS = 50;
const CONCURRENT = 100;
const NEXT_ROUNDS = 25;
const TARGETS = { bareShare: 0.85, ttfbMs: 30, rssMb: 200, nextShare: 0.7, nextTtfbRatio: 1.5 };

let seq = 0;
function body(text: string, agent = "demo"): { path: string; json: string } {
  seq++;
  return {
    path: `/api/agui/${agent}`,
    json: JSON.stringify({
      threadId: `bench-t${seq}`,
      runId: `bench-r${seq}`,
      protocolVersion: "1.0",
      messages: [{ id: `u${seq}`, role: "user", content: text }],
      tools: [],
      context: [],
    }),
  };
}

interface Read {
  ms: number;
  ttfbMs: number;
  bytes: number;
  text?: string;
}

/** POST and read the whole response, timing the first chunk that holds RUN_STARTED and the end. */
async function post(base: string, request: { path: string; json: string }, keepText = false): Promise<Read> {
  const started = performance.now();
  const response = await fetch(`${base}${request.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: request.json,
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let ttfbMs = NaN;
  let bytes = 0;
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (Number.isNaN(ttfbMs) || keepText) {
      const chunk = decoder.decode(value, { stream: true });
      if (Number.isNaN(ttfbMs) && (text + chunk).includes('"RUN_STARTED"')) ttfbMs = performance.now() - started;
      if (keepText || Number.isNaN(ttfbMs)) text += chunk;
    }
  }
  return { ms: performance.now() - started, ttfbMs, bytes, ...(keepText ? { text } : {}) };
}

/**
 * An agent that streams a prepared run of `deltas` text deltas: no model work, so what the
 * endpoint adds can be compared with a bare route. It hands events over 256 at a time with a turn
 * of the event loop between, the pacing the demo agent has at AGENT_STREAM_DELAY_MS=0.
 */
function replayAgent(deltas: number, name = "replay"): Agent {
  return {
    info: {
      name,
      description: "bench",
      model: "none",
      capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false },
    },
    run(input) {
      const queue = new EventQueue<AGUIEvent>();
      void (async () => {
        const at = Date.now();
        queue.push({
          type: EventType.RUN_STARTED,
          threadId: input.threadId,
          runId: input.runId,
          protocolVersion: "1.0",
          timestamp: at,
        } as AGUIEvent);
        queue.push({ type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant", timestamp: at } as AGUIEvent);
        for (let i = 0; i < deltas; i++) {
          queue.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "word ", timestamp: at } as AGUIEvent);
          if (i % 256 === 255) await new Promise((resolve) => setImmediate(resolve));
        }
        queue.push({ type: EventType.TEXT_MESSAGE_END, messageId: "m1", timestamp: at } as AGUIEvent);
        queue.push({
          type: EventType.MESSAGES_SNAPSHOT,
          messages: [...input.messages, { id: "m1", role: "assistant", content: "word ".repeat(deltas) }],
          timestamp: at,
        } as AGUIEvent);
        queue.push({
          type: EventType.RUN_FINISHED,
          threadId: input.threadId,
          runId: input.runId,
          outcome: { type: "success" },
          timestamp: at,
        } as AGUIEvent);
        queue.close();
      })();
      return queue;
    },
  };
}

/**
 * Throw-away services with the replay agents added ("replay", and "replay-short" streaming
 * SHORT_DELTAS) and no pacing of the agents' streams.
 */
function replayServices(): { services: Services; close: () => void } {
  const opened = throwAwayServices({ AGENT_STREAM_DELAY_MS: "0" });
  opened.services.agents.add(replayAgent(DELTAS));
  opened.services.agents.add(replayAgent(SHORT_DELTAS, "replay-short"));
  return opened;
}

/** A route over its own replay services, for serveInChild. */
function replayRoute(serve: (services: Services) => { path: string; handler: WebHandler } | { server: http.Server }): HandlerFactory {
  return async () => {
    const { services, close } = replayServices();
    return { ...serve(services), close };
  };
}

// The three routes the throughput rounds set against each other, each served in a process of its
// own (serveInChild): in one process the garbage one route leaves is collected in another's time,
// and the clients' own work lands on all of them (the MCP and A2A benches found both).
export const endpointRoute = replayRoute((services) => ({
  path: "/api/agui/[agent]",
  handler: consoleApi(services).agui.run as WebHandler,
}));
export const bareRoute = replayRoute((services) => ({ server: bareServer(services) }));
export const recordingRoute = replayRoute((services) => ({ server: recordingServer(services, true) }));
export const unstoredRoute = replayRoute((services) => ({ server: recordingServer(services, false) }));
export const webRoute = replayRoute((services) => ({ path: "/api/agui/[agent]", handler: webHandler(services) }));
// The endpoint itself over a run store that keeps nothing (the same handler, bridge and stream).
export const discardingRoute = replayRoute((services) => {
  const bridge = new AguiBridge({ ...services.bridge.dependencies, runs: new DiscardingRunStore() });
  return { path: "/api/agui/[agent]", handler: consoleApi({ ...services, bridge }).agui.run as WebHandler };
});

/** The chunks the endpoint's response body is made of (one per batch of ready frames), read in-process. */
async function captureChunks(services: Services, agent = "replay"): Promise<string[]> {
  const request = body(`/stream ${DELTAS}`, agent);
  const response = await consoleApi(services).agui.run(
    new Request(`http://127.0.0.1${request.path}`, {
      method: "POST",
      headers: { host: "127.0.0.1", "content-type": "application/json" },
      body: request.json,
    }),
    { params: Promise.resolve({ agent }) },
  );
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(decoder.decode(value));
  }
  return chunks;
}

/** The replay agent a bare route's request names (`/api/agui/replay-short`), "replay" otherwise. */
function replayFor(services: Services, url: string | undefined): Agent {
  return services.agents.get(url?.endsWith("/replay-short") ? "replay-short" : "replay")!;
}

/** The agent's events for a bare route's request (its body a RunAgentInput), run as the local principal. */
function agentEvents(agent: Agent, services: Services, input: RunAgentInput): EventQueue<AGUIEvent> {
  return agent.run(input, {
    principal: LOCAL_PRINCIPAL,
    signal: new AbortController().signal,
    executor: services.executor,
    logger: services.logger,
  }) as EventQueue<AGUIEvent>;
}

/**
 * The bare route: the replay agent's events, each batch written as SSE frames straight to the
 * node:http response. No auth, no input parsing, no bookkeeping, no record, no web stream.
 */
function bareServer(services: Services): http.Server {
  return http.createServer((req, res) => {
    const agent = replayFor(services, req.url);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RunAgentInput;
      res.writeHead(200, SSE_HEADERS);
      const json = new EventJsonEncoder();
      const events = agentEvents(agent, services, input);
      for (let batch = await events.nextBatch(); batch; batch = await events.nextBatch()) {
        let frames = "";
        for (const event of batch) frames += `data: ${json.encode(event)}\n\n`;
        if (!res.write(frames)) await new Promise((resolve) => res.once("drain", resolve));
      }
      res.end();
    });
  });
}

/**
 * The bare route's work as a web handler on the node adapter, as a Next.js route handler must be
 * written: the body read from a Request, the frames of each batch as bytes in a ReadableStream
 * that takes the next batch when the adapter pulls. No auth, no input checks, no record. Its time
 * against the bare route's is what the web-standard request and stream cost by themselves.
 */
function webHandler(services: Services): WebHandler {
  return async (request) => {
    const agent = replayFor(services, request.url);
    const input = (await request.json()) as RunAgentInput;
    const json = new EventJsonEncoder();
    const events = agentEvents(agent, services, input);
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const batch = await events.nextBatch();
        if (!batch) return controller.close();
        let frames = "";
        for (const event of batch) frames += `data: ${json.encode(event)}\n\n`;
        controller.enqueue(utf8Bytes(frames));
      },
    });
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  };
}

/**
 * The bare route plus only the work the endpoint cannot leave out, done with the endpoint's own
 * parts: the run recorded (its row, every event in the compact record through the run store, its
 * end with the thread's conversation) and its frames handed over as bytes, as a web Response body
 * must be (the bare route gives node:http strings, which it encodes while copying them to the
 * socket). No auth, no input checks, no bridge, no web stream. Its time against the bare route's
 * is the best share the endpoint could reach with nothing else to do. Unless `store`, the record
 * is built the same but goes nowhere (no run row either): what is left of that route's time above
 * the bare one is what building the record and the bytes costs, apart from SQLite.
 */
function recordingServer(services: Services, store: boolean): http.Server {
  return http.createServer((req, res) => {
    const agent = replayFor(services, req.url);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RunAgentInput;
      const { runId, threadId } = input;
      if (store) await services.runs.start({ runId, threadId, agent: agent.info.name, principal: LOCAL_PRINCIPAL.id });
      res.writeHead(200, SSE_HEADERS);
      const record = new RecordBatch();
      let seq = 0;
      let messages: Message[] | undefined;
      let messagesJson: string | undefined;
      const events = agentEvents(agent, services, input);
      for (let batch = await events.nextBatch(); batch; batch = await events.nextBatch()) {
        let frames = "";
        for (const event of batch) {
          frames += `data: ${record.add(event)}\n\n`;
          if (event.type === EventType.MESSAGES_SNAPSHOT) {
            messages = event.messages;
            messagesJson = record.encoder.messagesJson;
          }
        }
        const recorded = record.take()!;
        if (store) services.runs.appendRecord(runId, seq, recorded.count, recorded.json);
        seq += recorded.count;
        if (!res.write(utf8Bytes(frames))) await new Promise((resolve) => res.once("drain", resolve));
      }
      if (store) await services.runs.finish(runId, { status: "finished", outcome: { type: "success" }, messages, messagesJson, state: {} });
      res.end();
    });
  });
}

/** The floor: a node:http route writing bytes encoded beforehand, one write per event-loop turn. */
function preEncodedServer(chunks: string[]): http.Server {
  const buffers = chunks.map((c) => Buffer.from(c));
  return http.createServer((req, res) => {
    req.resume();
    req.on("end", async () => {
      res.writeHead(200, SSE_HEADERS);
      for (const buffer of buffers) {
        if (!res.write(buffer)) await new Promise((resolve) => res.once("drain", resolve));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
  });
}

interface Parts {
  inProcessMs: number[];
  agentMs: number[];
  recordMs: number[];
  encodeMs: number[];
}

/**
 * Where a demo-agent run's time goes, each part timed alone on the same events: the agent
 * producing them, encoding each once as the bridge does (JSON, SSE frames, the record, UTF-8),
 * and recording them in SQLite (batches of 256, written together). One sample of each per call,
 * added to `parts`.
 */
async function sampleParts(services: Services, events: AGUIEvent[], parts: Parts): Promise<void> {
  let started = performance.now();
  await captureChunks(services, "demo");
  parts.inProcessMs.push(performance.now() - started);

  const agent = services.agents.get("demo")!;
  const request = JSON.parse(body(`/stream ${DELTAS}`).json);
  const signal = new AbortController().signal;
  started = performance.now();
  for await (const _event of agent.run(request, {
    principal: LOCAL_PRINCIPAL,
    signal,
    executor: services.executor,
    logger: services.logger,
  }))
    void _event;
  parts.agentMs.push(performance.now() - started);

  started = performance.now();
  const record = new RecordBatch();
  const batches: Array<{ count: number; json: string }> = [];
  for (let i = 0; i < events.length; i += 256) {
    let frames = "";
    for (const event of events.slice(i, i + 256)) frames += `data: ${record.add(event)}\n\n`;
    if (!utf8Bytes(frames).length) throw new Error("nothing encoded");
    batches.push(record.take()!);
  }
  parts.encodeMs.push(performance.now() - started);

  const runId = `bench-record-${parts.recordMs.length}`;
  await services.runs.start({ runId, threadId: "bench-record", agent: "demo", principal: "local" });
  started = performance.now();
  batches.forEach((batch, i) => services.runs.appendRecord(runId, i * 256, batch.count, batch.json));
  await services.runs.flush();
  parts.recordMs.push(performance.now() - started);
}

function frameCount(text: string): number {
  return text.split("\n\n").filter((f) => f.startsWith("data: ")).length;
}

function parseEvents(text: string): AGUIEvent[] {
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("data: "))
    .map((f) => JSON.parse(f.slice(6)) as AGUIEvent);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The AG-UI endpoint's throughput against a bare SSE route, its time to first byte, and 100 concurrent runs. */
export async function benchAgui(): Promise<BenchResult[]> {
  const figures: Figure[] = [];
  const add = (label: string, value: number, unit: string, target?: Figure["target"], note?: string) =>
    figures.push({ label, value, unit, ...(target && { target }), ...(note && { note }) });
  // A route's run time, with the CPU its process spent a run (finer, with the rounds, for short runs).
  const routeTime = (label: string, ms: number, cpu: number, shortRounds?: number) =>
    add(
      label,
      ms,
      "ms",
      undefined,
      shortRounds
        ? `its process's CPU: ${cpu.toFixed(2)} ms a run; median of ${shortRounds}`
        : `its process's CPU: ${cpu.toFixed(1)} ms a run`,
    );
  let title = "agui";
  let next: BenchResult | undefined;
  const local = replayServices();
  const { services } = local;
  const endpoint = consoleApi(services).agui;
  const server = createNodeServer([{ method: "POST", path: "/api/agui/[agent]", handler: endpoint.run as WebHandler }]);
  const base = await listenLocal(server);
  const chunks = await captureChunks(services);
  const floor = preEncodedServer(chunks);
  const floorBase = await listenLocal(floor);
  const children: ServedHandler[] = [];
  try {
    // The routes set against each other each run in a process of their own; the clients run here.
    const serve = async (factory: string) => {
      const served = await serveInChild(__filename, factory);
      children.push(served);
      return served;
    };
    const endpointChild = await serve("endpointRoute");
    const bareChild = await serve("bareRoute");
    const recordingChild = await serve("recordingRoute");
    const unstoredChild = await serve("unstoredRoute");
    const discardingChild = await serve("discardingRoute");
    const webChild = await serve("webRoute");
    const [endpointBase, bareBase, recordingBase, unstoredBase, discardingBase, webBase] = [
      endpointChild.base,
      bareChild.base,
      recordingChild.base,
      unstoredChild.base,
      discardingChild.base,
      webChild.base,
    ];
    // 1. Throughput, endpoint and bare route interleaved so both see the same machine.
    const reference = await post(endpointBase, body(`/stream ${DELTAS}`, "replay"), true);
    const count = frameCount(reference.text!);
    if (count !== frameCount(chunks.join(""))) throw new Error("the captured stream and the served one differ in length");
    const bareCount = frameCount((await post(bareBase, body("warm-up", "replay"), true)).text!);
    if (bareCount !== count) throw new Error(`the bare route wrote ${bareCount} frames, the endpoint ${count}`);
    const webCount = frameCount((await post(webBase, body("warm-up", "replay"), true)).text!);
    if (webCount !== count) throw new Error(`the web handler wrote ${webCount} frames, the endpoint ${count}`);
    // Warm up both sides (the JIT, the sockets) before anything is timed.
    for (let i = 0; i < WARM_UP_ROUNDS; i++) {
      await post(endpointBase, body(`/stream ${DELTAS}`, "replay"));
      await post(bareBase, body("warm-up", "replay"));
      await post(recordingBase, body("warm-up", "replay"));
      await post(unstoredBase, body("warm-up", "replay"));
      await post(discardingBase, body(`/stream ${DELTAS}`, "replay"));
      await post(webBase, body("warm-up", "replay"));
      await post(floorBase, body("warm-up"));
    }
    const endpointMs: number[] = [];
    const endpointTtfb: number[] = [];
    const bareMs: number[] = [];
    const bareTtfb: number[] = [];
    const recordingMs: number[] = [];
    const unstoredMs: number[] = [];
    const discardingMs: number[] = [];
    const webMs: number[] = [];
    const floorMs: number[] = [];
    const demoMs: number[] = [];
    const events = parseEvents((await post(base, body(`/stream ${DELTAS}`), true)).text!);
    const parts: Parts = { inProcessMs: [], agentMs: [], recordMs: [], encodeMs: [] };
    // The routes take turns going first, so none always follows another's garbage; the
    // demo runs and the parts are sampled after, for the same reason.
    const routes = [
      async () => {
        const read = await post(endpointBase, body(`/stream ${DELTAS}`, "replay"));
        endpointMs.push(read.ms);
        endpointTtfb.push(read.ttfbMs);
      },
      async () => {
        const read = await post(bareBase, body("bare", "replay"));
        bareMs.push(read.ms);
        bareTtfb.push(read.ttfbMs);
      },
      async () => void recordingMs.push((await post(recordingBase, body("recording", "replay"))).ms),
      async () => void unstoredMs.push((await post(unstoredBase, body("unstored", "replay"))).ms),
      async () => void discardingMs.push((await post(discardingBase, body(`/stream ${DELTAS}`, "replay"))).ms),
      async () => void webMs.push((await post(webBase, body("web", "replay"))).ms),
      async () => void floorMs.push((await post(floorBase, body("floor"))).ms),
    ];
    // CPU per run of each route's process over `runs` runs (see processCpuSeconds), from `before`'s readings.
    const served = [endpointChild, bareChild, recordingChild, unstoredChild, discardingChild, webChild];
    const cpuNow = () => served.map((child) => child.cpuSeconds());
    const cpuPerRun = (before: number[], runs: number) => served.map((child, i) => ((child.cpuSeconds() - before[i]!) * 1000) / runs);
    const cpuBefore = cpuNow();
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      for (let i = 0; i < routes.length; i++) await routes[(round + i) % routes.length]!();
    }
    const [endpointCpu, bareCpu, recordingCpu, unstoredCpu, discardingCpu, webCpu] = cpuPerRun(cpuBefore, THROUGHPUT_ROUNDS);
    // The endpoint, the bare route, the recording route and the storeless endpoint on a short run,
    // turn about: what each costs a request.
    const shortBases = [endpointBase, bareBase, recordingBase, discardingBase];
    const shortMs: number[][] = shortBases.map(() => []);
    const shortRun = async (i: number) => (await post(shortBases[i]!, body(`/stream ${SHORT_DELTAS}`, "replay-short"))).ms;
    for (let round = 0; round < SHORT_WARM_UP_ROUNDS; round++) for (let i = 0; i < shortBases.length; i++) await shortRun(i);
    const shortCpuBefore = cpuNow();
    for (let round = 0; round < SHORT_ROUNDS; round++) {
      for (let k = 0; k < shortBases.length; k++) {
        const i = (round + k) % shortBases.length;
        shortMs[i]!.push(await shortRun(i));
      }
    }
    const [endpointShortCpu, bareShortCpu, recordingShortCpu, , discardingShortCpu] = cpuPerRun(shortCpuBefore, SHORT_ROUNDS);
    for (let round = 0; round < DEMO_ROUNDS; round++) {
      demoMs.push((await post(base, body(`/stream ${DELTAS}`))).ms);
      await sampleParts(services, events, parts);
    }
    const endpointMedian = median(endpointMs);
    const bareMedian = median(bareMs);
    title = `agui: ${count.toLocaleString("en")} events per run (${DELTAS.toLocaleString("en")} text deltas) in ${chunks.length} chunks, median of ${THROUGHPUT_ROUNDS} rounds (demo agent: ${DEMO_ROUNDS})`;
    routeTime("endpoint (node adapter) run time", endpointMedian, endpointCpu!);
    add("  its first byte (RUN_STARTED) after", median(endpointTtfb), "ms");
    add("endpoint events per second", (count * 1000) / endpointMedian, "events/s");
    routeTime("bare node:http route, same agent and frames, run time", bareMedian, bareCpu!);
    add("  its first byte (RUN_STARTED) after", median(bareTtfb), "ms");
    add("bare route events per second", (count * 1000) / bareMedian, "events/s");
    add("bare route's rate as a share: bare run time / endpoint run time", bareMedian / endpointMedian, "x", {
      min: TARGETS.bareShare,
    });
    const recordingMedian = median(recordingMs);
    routeTime("bare route plus only the run's record and bytes, run time", recordingMedian, recordingCpu!);
    add("  best share that work allows: bare / this route", bareMedian / recordingMedian, "x");
    add("  the endpoint's other work: this route / endpoint", recordingMedian / endpointMedian, "x");
    const unstoredMedian = median(unstoredMs);
    routeTime("the same, the record built but stored nowhere, run time", unstoredMedian, unstoredCpu!);
    add("  bare / this route: the best share without SQLite", bareMedian / unstoredMedian, "x");
    const discardingMedian = median(discardingMs);
    routeTime("endpoint over a run store that keeps nothing, run time", discardingMedian, discardingCpu!);
    add("  bare / this route: the endpoint's share were its storage free", bareMedian / discardingMedian, "x");
    const webMedian = median(webMs);
    routeTime("bare route's work as a web handler (Request, ReadableStream), run time", webMedian, webCpu!);
    add("  bare / this route: what the web-standard request and stream cost", bareMedian / webMedian, "x");
    const floorMedian = median(floorMs);
    add("floor: a route writing pre-encoded bytes, run time", floorMedian, "ms");
    add("  ratio endpoint / floor (no target)", endpointMedian / floorMedian, "x");
    // Per request: a short run on each route. The endpoint's CPU above the recording route's here
    // against the same difference on the long run says whether its other work is paid per request
    // or per event.
    routeTime(`a ${SHORT_DELTAS}-delta run: endpoint`, median(shortMs[0]!), endpointShortCpu!, SHORT_ROUNDS);
    routeTime(`a ${SHORT_DELTAS}-delta run: bare route`, median(shortMs[1]!), bareShortCpu!, SHORT_ROUNDS);
    routeTime(`a ${SHORT_DELTAS}-delta run: bare route plus the record and bytes`, median(shortMs[2]!), recordingShortCpu!, SHORT_ROUNDS);
    add(
      "  the endpoint's CPU above that route's, a request",
      endpointShortCpu! - recordingShortCpu!,
      "ms",
      undefined,
      `on the ${DELTAS.toLocaleString("en")}-delta run: ${(endpointCpu! - recordingCpu!).toFixed(2)} ms`,
    );
    routeTime(
      `a ${SHORT_DELTAS}-delta run: endpoint over a run store that keeps nothing`,
      median(shortMs[3]!),
      discardingShortCpu!,
      SHORT_ROUNDS,
    );
    const demoMedian = median(demoMs);
    add("demo agent /stream run over HTTP (model work included)", demoMedian, "ms");
    add("demo agent events per second", (events.length * 1000) / demoMedian, "events/s");
    // Each part measured alone on the same events in the same rounds (parts overlap in a real run, so they are not summed).
    add("  the same demo run in-process (no socket)", median(parts.inProcessMs), "ms");
    add("  its agent alone (scripted model, AgentRun, event queue)", median(parts.agentMs), "ms");
    add("  encoding its events once (JSON, frames, record, UTF-8)", median(parts.encodeMs), "ms");
    add("  recording its events in SQLite (written together)", median(parts.recordMs), "ms");

    // 2. Time to the first byte of RUN_STARTED, a short run each time.
    for (let i = 0; i < 5; i++) await post(base, body("hello", "plain-chat"));
    const ttfb: number[] = [];
    for (let i = 0; i < TTFB_RUNS; i++) ttfb.push((await post(base, body("hello", "plain-chat"))).ttfbMs);
    const ttfbMedian = median(ttfb);
    add(`median time to first byte of RUN_STARTED (${TTFB_RUNS} runs)`, ttfbMedian, "ms", { max: TARGETS.ttfbMs });
    add("  p90", [...ttfb].sort((a, b) => a - b)[Math.floor(TTFB_RUNS * 0.9)]!, "ms");

    // 3. 100 concurrent runs of every kind; resident memory sampled while they run.
    globalThis.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 5);
    const texts = ["weather in Paris and Tokyo", "refund order 12 for 3 EUR", "calculate 6 * 7", "/stream 2000", "hello"];
    const started = performance.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: CONCURRENT }, (_, i) =>
        post(base, body(texts[i % texts.length]!, i % texts.length === 4 ? "plain-chat" : "demo"), true),
      ),
    );
    const wallMs = performance.now() - started;
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    const failures = outcomes.filter(
      (o) =>
        o.status === "rejected" || !/"type":"RUN_FINISHED"[^\n]*\n\n$/.test(o.value.text ?? "") || o.value.text!.includes('"RUN_ERROR"'),
    );
    const growthMb = (rssPeak - rssBefore) / 1024 / 1024;
    add(`${CONCURRENT} concurrent runs: failed or without RUN_FINISHED`, failures.length, "", { max: 0 });
    add(`${CONCURRENT} concurrent runs: wall time`, wallMs, "ms");
    add(`${CONCURRENT} concurrent runs: peak RSS growth`, growthMb, "MB", { max: TARGETS.rssMb });

    next = await throughNext();
  } finally {
    await close(server);
    for (const child of children) await child.stop();
    await close(floor);
    local.close();
  }
  return [{ title, figures }, next!];
}

const NEXT_TITLE = "agui: the endpoint through the production build's Next.js server";

/**
 * The demo agent's `/stream 20000` through Next and through the node adapter, each server in a
 * process of its own, turn about, and the first byte of a short run through Next against that of an
 * empty route of the same build (GET /api/bench/empty, bench/support/bench-routes.ts).
 */
async function throughNext(): Promise<BenchResult> {
  if (!hasBuild()) return { title: NEXT_TITLE, figures: [], skipped: "needs a production build (npm run build)" };
  const built = await startBuiltConsole({ env: { AGENT_STREAM_DELAY_MS: "0" } });
  // The adapter side in a process of its own too, as Next's is: neither shares a core's time with this client.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-adapter-"));
  const adapter = await startInstance({ CONSOLE_DB: path.join(dir, "bench.db") }).catch(async (error: unknown) => {
    await built.stop();
    throw error;
  });
  const adapterBase = adapter.url;
  try {
    // The same answer both ways; a reader that falls behind gets deltas joined (AgentRun), so the
    // frame counts may differ: each is printed.
    const frames = async (base: string) => {
      const text = (await post(base, body(`/stream ${DELTAS}`), true)).text!;
      if (!/"type":"RUN_FINISHED"[^\n]*\n\n$/.test(text))
        throw new Error(`a /stream run through ${base} did not finish: ${text.slice(-300)}`);
      return frameCount(text);
    };
    const nextFrames = await frames(built.base);
    const adapterFrames = await frames(adapterBase);
    for (let i = 0; i < WARM_UP_ROUNDS; i++) {
      await post(built.base, body(`/stream ${DELTAS}`));
      await post(adapterBase, body(`/stream ${DELTAS}`));
    }
    const nextMs: number[] = [];
    const adapterMs: number[] = [];
    for (let round = 0; round < NEXT_ROUNDS; round++) {
      const pair = [
        async () => void nextMs.push((await post(built.base, body(`/stream ${DELTAS}`))).ms),
        async () => void adapterMs.push((await post(adapterBase, body(`/stream ${DELTAS}`))).ms),
      ];
      for (let i = 0; i < pair.length; i++) await pair[(round + i) % pair.length]!();
    }

    for (let i = 0; i < 5; i++) {
      await post(built.base, body("hello", "plain-chat"));
      await firstByte(`${built.base}${EMPTY_ROUTE}`);
    }
    const runTtfb: number[] = [];
    const emptyTtfb: number[] = [];
    for (let i = 0; i < TTFB_RUNS; i++) {
      runTtfb.push((await post(built.base, body("hello", "plain-chat"))).ttfbMs);
      emptyTtfb.push(await firstByte(`${built.base}${EMPTY_ROUTE}`));
    }

    const nextMedian = median(nextMs);
    const adapterMedian = median(adapterMs);
    return {
      title: `${NEXT_TITLE}: demo agent /stream ${DELTAS.toLocaleString("en")}, median of ${NEXT_ROUNDS} rounds; first bytes over ${TTFB_RUNS} runs`,
      figures: [
        {
          label: "run time through Next",
          value: nextMedian,
          unit: "ms",
          note: `${nextFrames.toLocaleString("en")} frames in the checked run`,
        },
        {
          label: "run time through the node adapter, same rounds",
          value: adapterMedian,
          unit: "ms",
          note: `${adapterFrames.toLocaleString("en")} frames in the checked run`,
        },
        {
          label: "Next's rate as a share: adapter run time / Next run time",
          value: adapterMedian / nextMedian,
          unit: "x",
          target: { min: TARGETS.nextShare },
        },
        { label: "first byte of RUN_STARTED through Next (plain-chat), median", value: median(runTtfb), unit: "ms" },
        { label: `first byte of an empty route (GET ${EMPTY_ROUTE}) through Next, median`, value: median(emptyTtfb), unit: "ms" },
        {
          label: "ratio run's first byte / the empty route's",
          value: median(runTtfb) / median(emptyTtfb),
          unit: "x",
          target: { max: TARGETS.nextTtfbRatio },
        },
      ],
    };
  } finally {
    await Promise.all([built.stop(), adapter.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Milliseconds until the first chunk of a GET to `url` (the whole answer is read). */
async function firstByte(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  const reader = response.body!.getReader();
  await reader.read();
  const ms = performance.now() - started;
  while (!(await reader.read()).done);
  return ms;
}

export default benchAgui;
