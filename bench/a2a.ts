// The A2A endpoint over a bare node:http server (lib/http/node-adapter.ts, no Next.js), measured in
// the same run as its baseline: SendMessage of a no-op tool from 16 concurrent clients, against a
// bare SDK server (DefaultRequestHandler, InMemoryTaskStore and an executor publishing the same
// events: task, working, the result artifact, completed) behind the same adapter. The console's
// side adds auth, the body and data-part limits, the task cap, the executor (argument and output
// checks, the call record) and tasks kept in SQLite. The Next.js half of the benchmark (the
// route against an empty route) needs a production build with an empty route, so it is not measured here.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { AgentCard, TaskState, type Part } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
} from "@a2a-js/sdk/server";
import { consoleApi } from "@/lib/api";
import { loadConfig } from "@/lib/config";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import { createServices } from "@/lib/services";
import { median, type BenchResult, type Figure } from "./support/measure";

const CLIENTS = 16;
const CALLS_PER_ROUND = 2000;
const ROUNDS = 5;
const TARGETS = { throughputRatio: 0.8 };

const NOOP = {
  name: "noop",
  description: "Does nothing",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  outputSchema: { type: "object", properties: {} },
};

const body = () =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ data: { tool: "noop", arguments: {} } }] } },
  });

const dataPart = (value: unknown): Part => ({
  content: { $case: "data", value },
  mediaType: "application/json",
  filename: "",
  metadata: undefined,
});

/** The SDK's pattern with one tool: the task, working, the result artifact, completed. */
const bareExecutor: AgentExecutor = {
  async execute(rc, bus) {
    const { taskId, contextId } = rc;
    const status = (state: TaskState) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [rc.userMessage],
        metadata: undefined,
      }),
    );
    status(TaskState.TASK_STATE_WORKING);
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        append: false,
        lastChunk: true,
        metadata: undefined,
        artifact: { artifactId: randomUUID(), name: "result", description: "", parts: [dataPart({})], metadata: undefined, extensions: [] },
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED);
  },
  async cancelTask() {},
};

function bareHandler(): WebHandler {
  const card = AgentCard.fromJSON({
    name: "bare",
    description: "bare",
    version: "1",
    supportedInterfaces: [{ url: "http://127.0.0.1/api/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: true },
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: [],
  });
  const transport = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), bareExecutor));
  return async (request) => {
    const parsed = (await request.json()) as Record<string, unknown>;
    const ctx = new ServerCallContext({ requestedVersion: request.headers.get("a2a-version") ?? undefined });
    return Response.json(await transport.handle(parsed, ctx));
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

function post(base: string, text: string): Promise<string> {
  const url = new URL(`${base}/api/a2a`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0", "content-length": Buffer.byteLength(text) },
      },
      (res) => {
        let answer = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (answer += chunk));
        res.on("end", () => (res.statusCode === 200 ? resolve(answer) : reject(new Error(`${res.statusCode}: ${answer}`))));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** Calls per second with CLIENTS requests always in flight. */
async function throughput(base: string, calls: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next++ < calls) await post(base, body());
    }),
  );
  return (calls * 1000) / (performance.now() - started);
}

export default async function benchA2a(): Promise<BenchResult> {
  const figures: Figure[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-"));
  const services = createServices(loadConfig({ CONSOLE_DB: path.join(dir, "bench.db"), LOG_LEVEL: "silent" }));
  services.registry.add(NOOP, () => ({}));
  const endpoint = consoleApi(services).a2a;
  const console_ = createNodeServer([{ method: "POST", path: "/api/a2a", handler: endpoint.post as WebHandler }]);
  const bare = createNodeServer([{ method: "POST", path: "/api/a2a", handler: bareHandler() }]);
  const base = await listenLocal(console_);
  const bareBase = await listenLocal(bare);
  try {
    for (const answer of [await post(base, body()), await post(bareBase, body())])
      if (!answer.includes('"TASK_STATE_COMPLETED"')) throw new Error(`unexpected answer: ${answer}`);
    await throughput(base, 500);
    await throughput(bareBase, 500);
    // Rounds alternate which side goes first, so neither always runs on the other's garbage.
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2) theirs.push(await throughput(bareBase, CALLS_PER_ROUND));
      ours.push(await throughput(base, CALLS_PER_ROUND));
      if (!(round % 2)) theirs.push(await throughput(bareBase, CALLS_PER_ROUND));
    }
    const oursMedian = median(ours);
    const theirsMedian = median(theirs);
    figures.push({ label: `SendMessage no-op tool, ${CLIENTS} clients, console handler`, value: oursMedian, unit: "calls/s" });
    figures.push({ label: `SendMessage no-op tool, ${CLIENTS} clients, bare SDK server`, value: theirsMedian, unit: "calls/s" });
    figures.push({ label: "ratio console / bare", value: oursMedian / theirsMedian, unit: "x", target: { min: TARGETS.throughputRatio } });
  } finally {
    agent.destroy();
    console_.closeAllConnections();
    bare.closeAllConnections();
    await Promise.all([console_, bare].map((s) => new Promise((resolve) => s.close(resolve))));
    services.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { title: "a2a", figures };
}
