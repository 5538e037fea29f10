// The A2A endpoint over a bare node:http server (lib/http/node-adapter.ts, no Next.js), measured in
// the same run as its baseline: SendMessage of a no-op tool from 16 concurrent clients, against a
// bare SDK server (DefaultRequestHandler, InMemoryTaskStore and an executor publishing the same
// events: task, working, the result artifact, completed) behind the same adapter, each server in a
// process of its own (./support/a2a-handlers.ts, served by ./support/served-handler.ts). The console's
// side adds auth, the body and data-part limits, the task cap, the executor (argument and output
// checks, the call record) and tasks kept in SQLite; the writes a call must make to SQLite (its
// task in a2a_tasks, its record in call_results) are timed alone and shown as a share. The Next.js
// half runs the production build (scripts/server.mjs, as `npm start` serves it) and sets POST
// /api/a2a against an empty route of the same build, with the same 16 clients, beside the bare SDK
// server in a route of that build (app/api/bench/, served by a console started with
// CONSOLE_BENCH_ROUTES=1): what any route serving the SDK reaches there. It is skipped when there
// is no build. An empty handler on the adapter gives the SDK's own time per call.
import path from "node:path";
import { randomUUID } from "node:crypto";
import { TaskState } from "@a2a-js/sdk";
import { A2ATaskRows } from "@/lib/db/a2a-tasks";
import { newCallId } from "@/lib/execution/call-id";
import { A2A_PATH } from "./support/a2a-handlers";
import { noopServices, type BenchServices } from "./support/noop-services";
import { NOOP } from "./support/noop-tool";
import {
  cpuPerCallNote,
  freshServerRound,
  Load,
  nextRouteAgainstBaselines,
  rotated,
  roundRatios,
  roundRatiosNote,
  sdkOwnWork,
  type LoadRequest,
} from "./support/load";
import { median, type BenchResult, type Figure } from "./support/measure";

const CLIENTS = 16;
const CALLS_PER_ROUND = 3000;
/** Calls per round through Next (its server is the slower side: the wall clock times it). */
const NEXT_CALLS_PER_ROUND = 2000;
const ROUNDS = 5;
/** Rounds through Next, each timing the route, the bare SDK's route and the empty route. */
const NEXT_ROUNDS = 7;
const TARGETS = { throughputRatio: 0.8, nextRatio: 0.9 };
/** Call records written in one commit when timing the writes alone: about what one turn of the loop holds at CLIENTS calls in flight. */
const RECORDS_PER_COMMIT = CLIENTS;
const HANDLERS = path.join(__dirname, "support", "a2a-handlers.ts");

/** SendMessage of a data part calling `tool`, a new message id each time. */
const sendMessage = (tool: string, args: Record<string, unknown>): LoadRequest => ({
  path: A2A_PATH,
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

export default async function benchA2a(): Promise<BenchResult[]> {
  const figures: Figure[] = [];
  const add = (label: string, value: number, unit: string, target?: Figure["target"], note?: string) =>
    figures.push({ label, value, unit, ...(target && { target }), ...(note && { note }) });
  // Each server timed in the ratio in a process of its own, a fresh one each round (see
  // ./support/served-handler.ts and freshServerRound).
  const load = new Load(CLIENTS);
  const round = (factory: string, cpuMicros: number[], check?: (answer: string) => void) => () =>
    freshServerRound(load, HANDLERS, factory, CALLS_PER_ROUND, call, cpuMicros, check);
  // Every round's server completes the call's task.
  const completed = (answer: string) => {
    if (!answer.includes('"TASK_STATE_COMPLETED"')) throw new Error(`unexpected answer: ${answer}`);
  };
  // The writes timed alone, in this process.
  const local = await noopServices();
  const { services } = local;
  try {
    const oursCpu: number[] = [];
    const theirsCpu: number[] = [];
    const [ours, theirs] = (await rotated(ROUNDS, [round("consoleA2a", oursCpu, completed), round("bareA2a", theirsCpu, completed)])) as [
      number[],
      number[],
    ];
    const theirsMedian = median([...theirs]);
    add(`SendMessage no-op tool, ${CLIENTS} clients, console handler`, median([...ours]), "calls/s", undefined, cpuPerCallNote(oursCpu));
    add(`SendMessage no-op tool, ${CLIENTS} clients, bare SDK server`, theirsMedian, "calls/s", undefined, cpuPerCallNote(theirsCpu));
    // The median of each round's ratio, as the MCP bench's: a slow phase moves both sides of a round.
    const ratios = roundRatios(ours, theirs);
    add("ratio console / bare", ratios.median, "x", { min: TARGETS.throughputRatio }, roundRatiosNote(ratios));
    // What the console must do that the bare server keeps in memory: the task written to a2a_tasks
    // once it ends (so a restart loses none) and the call recorded in call_results (the executor's
    // memo and the tool's history). Each timed alone, a commit per row, on the same database, as a
    // share of a call: an upper bound, since the task store shares one commit among the tasks that
    // end in the same tick. Against the console's CPU per call.
    const writeMicros = persistMicros(services);
    const perCallMicros = median(oursCpu);
    add(
      "  of which, at most: the a2a_tasks and call_results writes",
      writeMicros,
      "µs",
      undefined,
      `${((100 * writeMicros) / perCallMicros).toFixed(0)}% of ${perCallMicros.toFixed(0)} µs per call`,
    );
    add("  ratio with those writes taken out (CPU per call)", median(theirsCpu) / (perCallMicros - writeMicros), "x");
    // The same clients against a handler that only answers: the SDK's own time per call is what the
    // bare server spends above it, a floor for any A2A route.
    figures.push(await sdkOwnWork(CLIENTS, round("emptyA2a", []), theirsMedian));
  } finally {
    load.close();
    local.close();
  }
  const next = await nextRouteAgainstBaselines({
    title: "a2a: the Next route (production build) against an empty route and the bare SDK in a route of the same build",
    protocol: "A2A",
    what: "SendMessage",
    // The demo `calculate` tool, a no-op in all but name: tools registered here have no handler in the server's process.
    request: sendMessage("calculate", { expression: "1" }),
    expect: '"TASK_STATE_COMPLETED"',
    barePath: "/api/bench/a2a",
    bareExpect: '"TASK_STATE_COMPLETED"',
    target: TARGETS.nextRatio,
    clients: CLIENTS,
    calls: NEXT_CALLS_PER_ROUND,
    rounds: NEXT_ROUNDS,
  });
  return [{ title: "a2a: the handler on bare node:http", figures }, next];
}

/**
 * Microseconds per call for the two rows a finished SendMessage writes: its task (the JSON a no-op
 * call leaves, upserted as the task store does, a commit each) and its call_results record
 * (written behind, RECORDS_PER_COMMIT to a commit), commits and checkpoints included (median of 5 batches).
 */
function persistMicros(services: BenchServices): number {
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
