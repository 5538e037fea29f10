// The A2A endpoint over a bare node:http server (lib/http/node-adapter.ts, no Next.js), measured in
// the same run as its baseline: SendMessage of a no-op tool from 16 concurrent clients, against a
// bare SDK server (DefaultRequestHandler, InMemoryTaskStore and an executor publishing the same
// events: task, working, the result artifact, completed) behind the same adapter. The console's
// side adds auth, the body and data-part limits, the task cap, the executor (argument and output
// checks, the call record) and tasks kept in SQLite; the writes a call must make to SQLite (its
// task in a2a_tasks, its record in call_results) are timed alone and shown as a share. The Next.js
// half runs the production build (scripts/server.mjs, as `npm start` serves it) and sets POST
// /api/a2a against GET /api/health, the console's nearest thing to an empty route, with the same 16
// clients; it is skipped when there is no build. An empty handler on the same adapter gives the
// SDK's own time per call, and with it the best ratio any route serving the bare SDK could reach.
import fs from "node:fs";
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
import { A2ATaskRows } from "@/lib/db/a2a-tasks";
import { newCallId } from "@/lib/execution/call-id";
import { loadConfig } from "@/lib/config";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import { createServices } from "@/lib/services";
import { interleaved, Load, nextRouteAgainstHealth, sdkCeiling, sdkOwnWork, type LoadRequest } from "./support/load";
import { median, type BenchResult, type Figure } from "./support/measure";

const CLIENTS = 16;
const CALLS_PER_ROUND = 2000;
const ROUNDS = 5;
const TARGETS = { throughputRatio: 0.8, nextRatio: 0.9 };
/** Call records written in one commit when timing the writes alone: about what one turn of the loop holds at CLIENTS calls in flight. */
const RECORDS_PER_COMMIT = CLIENTS;

const NOOP = {
  name: "noop",
  description: "Does nothing",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  outputSchema: { type: "object", properties: {} },
};

/** SendMessage of a data part calling `tool`, a new message id each time. */
const sendMessage = (tool: string, args: Record<string, unknown>): LoadRequest => ({
  path: "/api/a2a",
  body: () =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ data: { tool, arguments: args } }] } },
    }),
  headers: { "a2a-version": "1.0" },
});
const call = sendMessage("noop", {});

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

export default async function benchA2a(): Promise<BenchResult[]> {
  const figures: Figure[] = [];
  const add = (label: string, value: number, unit: string, target?: Figure["target"], note?: string) =>
    figures.push({ label, value, unit, ...(target && { target }), ...(note && { note }) });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-"));
  const services = createServices(loadConfig({ CONSOLE_DB: path.join(dir, "bench.db"), LOG_LEVEL: "silent" }));
  await services.registry.add(NOOP, () => ({}));
  const endpoint = consoleApi(services).a2a;
  const console_ = createNodeServer([{ method: "POST", path: "/api/a2a", handler: endpoint.post as WebHandler }]);
  const bare = createNodeServer([{ method: "POST", path: "/api/a2a", handler: bareHandler() }]);
  // node:http and the adapter alone: what any handler pays before it starts.
  const empty = createNodeServer([
    { method: "POST", path: "/api/a2a", handler: async () => Response.json({ jsonrpc: "2.0", id: 1, result: {} }) },
  ]);
  const base = await listenLocal(console_);
  const bareBase = await listenLocal(bare);
  const emptyBase = await listenLocal(empty);
  let sdkMs: number | undefined;
  const load = new Load(CLIENTS);
  try {
    for (const answer of [await load.send(base, call), await load.send(bareBase, call)])
      if (!answer.includes('"TASK_STATE_COMPLETED"')) throw new Error(`unexpected answer: ${answer}`);
    await load.throughput(base, 500, call);
    await load.throughput(bareBase, 500, call);
    // The console's caller holds its cap of 1,000 tasks after the first round: from then on every
    // new task makes room by dropping old ones, as a busy client's would.
    const [oursMedian, theirsMedian] = await interleaved(
      ROUNDS,
      () => load.throughput(base, CALLS_PER_ROUND, call),
      () => load.throughput(bareBase, CALLS_PER_ROUND, call),
    );
    add(`SendMessage no-op tool, ${CLIENTS} clients, console handler`, oursMedian, "calls/s");
    add(`SendMessage no-op tool, ${CLIENTS} clients, bare SDK server`, theirsMedian, "calls/s");
    add("ratio console / bare", oursMedian / theirsMedian, "x", { min: TARGETS.throughputRatio });
    // What the console must do that the bare server keeps in memory: the task written to a2a_tasks
    // once it ends (so a restart loses none) and the call recorded in call_results (the executor's
    // memo and the tool's history). Each timed alone, a commit per row, on the same database, as a
    // share of a call: an upper bound, since the task store shares one commit among the tasks that
    // end in the same tick.
    const writeMicros = persistMicros(services);
    const perCallMicros = 1e6 / oursMedian;
    add(
      "  of which, at most: the a2a_tasks and call_results writes",
      writeMicros,
      "µs",
      undefined,
      `${((100 * writeMicros) / perCallMicros).toFixed(0)}% of ${perCallMicros.toFixed(0)} µs per call`,
    );
    add("  ratio with those writes taken out", 1e6 / (perCallMicros - writeMicros) / theirsMedian, "x");
    // The same clients against a handler that only answers: the SDK's own time per call is what the
    // bare server spends above it, a floor for any A2A route (used by the Next half below).
    const own = await sdkOwnWork(load, emptyBase, call, CALLS_PER_ROUND, theirsMedian);
    sdkMs = own.sdkMs;
    figures.push(own.figure);
  } finally {
    load.close();
    console_.closeAllConnections();
    bare.closeAllConnections();
    empty.closeAllConnections();
    await Promise.all([console_, bare, empty].map((s) => new Promise((resolve) => s.close(resolve))));
    services.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const next = await nextRouteAgainstHealth({
    title: "a2a: the Next route (production build) against GET /api/health",
    protocol: "A2A",
    what: "SendMessage",
    // The demo `calculate` tool, a no-op in all but name: tools registered here have no handler in the server's process.
    request: sendMessage("calculate", { expression: "1" }),
    expect: '"TASK_STATE_COMPLETED"',
    target: TARGETS.nextRatio,
    clients: CLIENTS,
    calls: CALLS_PER_ROUND,
    rounds: ROUNDS,
    // The SDK's own work per SendMessage (measured above on bare node:http) is a floor for any A2A
    // route: health plus that is the best a route serving the bare SDK could do.
    more: sdkCeiling(sdkMs),
  });
  return [{ title: "a2a: the handler on bare node:http", figures }, next];
}

/**
 * Microseconds per call for the two rows a finished SendMessage writes: its task (the JSON a no-op
 * call leaves, upserted as the task store does, a commit each) and its call_results record
 * (written behind, RECORDS_PER_COMMIT to a commit), commits and checkpoints included (median of 5 batches).
 */
function persistMicros(services: ReturnType<typeof createServices>): number {
  const rows = new A2ATaskRows(services.database.db);
  const result = { ok: true as const, value: {} };
  const batches: number[] = [];
  for (let batch = 0; batch < 5; batch++) {
    const started = performance.now();
    for (let i = 0; i < 1000; i++) {
      const id = randomUUID();
      const now = Date.now();
      rows.save(
        {
          id,
          principal: "bench",
          contextId: randomUUID(),
          state: TaskState.TASK_STATE_COMPLETED,
          task: finishedTask(id),
          parked: null,
          expiresAt: now + 3600_000,
        },
        now,
      );
      // Written behind, RECORDS_PER_COMMIT at a time (see below).
      void services.callHistory.put(
        // The call id the server's executor gives an A2A call (time first), under the task's scope.
        { principal: "bench", scope: `a2a:${id}`, callId: newCallId(), tool: NOOP.name, argsDigest: "d" },
        result,
        0.1,
        {},
      );
      if ((i + 1) % RECORDS_PER_COMMIT === 0) services.callHistory.flush();
    }
    services.callHistory.flush();
    batches.push((performance.now() - started) / 1000);
  }
  return median(batches) * 1000;
}

/** The JSON of a finished no-op call's task, as the console stores it. */
function finishedTask(id: string): Record<string, unknown> {
  const contextId = randomUUID();
  const at = new Date().toISOString();
  return {
    id,
    contextId,
    status: { state: "TASK_STATE_COMPLETED", timestamp: at },
    artifacts: [{ artifactId: randomUUID(), name: "result", parts: [{ data: {}, mediaType: "application/json" }] }],
    history: [{ messageId: randomUUID(), contextId, taskId: id, role: "ROLE_USER", parts: [{ data: { tool: "noop", arguments: {} } }] }],
  };
}
