// The MCP endpoint over a bare node:http server (lib/http/node-adapter.ts, no Next.js), measured in
// the same run as its baseline: tools/call of a no-op tool from 16 concurrent clients, against a
// bare SDK server (a low-level Server and transport per request, as the SDK's stateless example
// builds them) answering the same tool on node:http with the SDK's Node transport, each server in
// a process of its own (./support/mcp-handlers.ts, served by ./support/served-handler.ts); beside
// them, the same bare server on the console's adapter with the SDK's web-standard transport (what
// the console's own work costs per call), and that server running the no-op through the console's
// executor (what tools/call must do); and the first tools/list page
// of a 10,000-tool registry. The Next.js half runs the production build (scripts/server.mjs, as `npm
// start` serves it) and sets POST /api/mcp against an empty route of the same build, with the same
// 16 clients, beside the bare SDK server in a route of that build (app/api/bench/, served by a
// console started with CONSOLE_BENCH_ROUTES=1): what any route serving the SDK reaches there. It is
// skipped when there is no build. An empty handler on the adapter gives the SDK's own time per call.
import path from "node:path";
import { consoleApi } from "@/lib/api";
import { CALL_RECORD_COMMIT_MS } from "@/lib/storage";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import { MCP_PATH, NOOP_ANSWER } from "./support/mcp-handlers";
import { noopServices } from "./support/noop-services";
import { recordWriteMicros } from "./support/record-writes";
import {
  cpuPerCallNote,
  freshServerRound,
  rotated,
  roundRatios,
  roundRatiosNote,
  Load,
  nextRouteAgainstBaselines,
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
const REGISTRY_TOOLS = 10_000;
/** Registry changes after each of which the first tools/list page is timed. */
const LIST_CHANGES = 10;
const TARGETS = { throughputRatio: 0.8, listMs: 50, nextRatio: 0.9 };
const HANDLERS = path.join(__dirname, "support", "mcp-handlers.ts");

/** A JSON-RPC request to the MCP endpoint (the transport wants both answer types accepted). */
const rpc = (method: string, params: unknown): LoadRequest => ({
  path: MCP_PATH,
  body: () => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  headers: { accept: "application/json, text/event-stream" },
});
const call = rpc("tools/call", { name: "noop", arguments: {} });
const list = rpc("tools/list", {});

export default async function benchMcp(): Promise<BenchResult[]> {
  const figures: Figure[] = [];
  const add = (label: string, value: number, unit: string, target?: Figure["target"], note?: string) =>
    figures.push({ label, value, unit, ...(target && { target }), ...(note && { note }) });
  // Each server timed in the ratio in a process of its own, a fresh one each round (see
  // ./support/served-handler.ts and freshServerRound).
  const load = new Load(CLIENTS);
  const round = (factory: string, cpuMicros: number[], check: (answer: string) => void) => () =>
    freshServerRound(load, HANDLERS, factory, CALLS_PER_ROUND, call, cpuMicros, check);
  // Every round's server answers the no-op as the SDK does; the empty handler with the bare server's very bytes.
  const noopAnswer = (answer: string) => {
    if (!answer.includes('"structuredContent":{}')) throw new Error(`unexpected answer: ${answer}`);
  };
  const bareAnswer = (answer: string) => {
    if (answer !== NOOP_ANSWER) throw new Error(`the answer is not the bare SDK server's: ${answer}`);
  };
  // The call record's write timed alone, and tools/list over a large registry, in this process.
  const local = await noopServices();
  const { services } = local;
  const listServer = createNodeServer([{ method: "POST", path: MCP_PATH, handler: consoleApi(services).mcp.post as WebHandler }]);
  const listBase = await listenLocal(listServer);
  try {
    // The bare SDK server twice: as the SDK serves it on Node (the target's baseline: nothing of
    // the console), and with the SDK's web-standard transport on the console's own adapter (no
    // target: set against it, the console's handler shows what the console's own work costs).
    // Beside them, that second server calling the console's executor: the share of the console's
    // cost that tools/call's own work (checks, approval gate, call record) takes, without the rest
    // of the console's handler.
    const oursCpu: number[] = [];
    const sdkNodeCpu: number[] = [];
    const theirsCpu: number[] = [];
    const executorCpu: number[] = [];
    const rates = await rotated(ROUNDS, [
      round("consoleMcp", oursCpu, noopAnswer),
      round("sdkNodeMcp", sdkNodeCpu, bareAnswer),
      round("bareMcp", theirsCpu, bareAnswer),
      round("executorMcp", executorCpu, bareAnswer),
    ]);
    const [ours, sdkNode, theirs] = rates as [number[], number[], number[]];
    // The ratios are medians of each round's ratio: a slow phase moves both sides of a round.
    const againstSdkNode = roundRatios(ours, sdkNode);
    const againstTheirs = roundRatios(ours, theirs);
    const [oursMedian, sdkNodeMedian, theirsMedian, executorMedian] = rates.map((r) => median([...r])) as [number, number, number, number];
    add(`tools/call no-op, ${CLIENTS} clients, console handler`, oursMedian, "calls/s", undefined, cpuPerCallNote(oursCpu));
    add(
      `tools/call no-op, ${CLIENTS} clients, bare SDK server (node:http, the SDK's Node transport)`,
      sdkNodeMedian,
      "calls/s",
      undefined,
      cpuPerCallNote(sdkNodeCpu),
    );
    add("ratio console / bare", againstSdkNode.median, "x", { min: TARGETS.throughputRatio }, roundRatiosNote(againstSdkNode));
    add(
      "  the bare SDK server on the console's adapter (its web-standard transport)",
      theirsMedian,
      "calls/s",
      undefined,
      cpuPerCallNote(theirsCpu),
    );
    add(
      "    ratio console / that server (the console's own work per call)",
      againstTheirs.median,
      "x",
      undefined,
      roundRatiosNote(againstTheirs),
    );
    // What the console must do that the bare server does not: record each call in call_results (a
    // SQLite insert the executor's memo and the tool's history rely on). Timed alone on the same
    // database, commits and checkpoints included, as a share of the console's CPU per call.
    // As many records a commit as the console's calls put in one CALL_RECORD_COMMIT_MS at its rate.
    const perCommit = Math.max(1, Math.round((oursMedian * CALL_RECORD_COMMIT_MS) / 1000));
    const putMicros = recordWriteMicros(services.callHistory, perCommit, "mcp");
    const perCallMicros = median(oursCpu);
    add(
      "  of which: the call_results write",
      putMicros,
      "µs",
      undefined,
      `${perCommit} a commit, timed here: ${((100 * putMicros) / perCallMicros).toFixed(0)}% of ${perCallMicros.toFixed(0)} µs per call`,
    );
    add(
      "  ratio to the server on the adapter with that write taken out (CPU per call)",
      median(theirsCpu) / (perCallMicros - putMicros),
      "x",
    );
    add(
      "  the bare SDK server on the adapter running the no-op through the console's executor",
      executorMedian,
      "calls/s",
      undefined,
      cpuPerCallNote(executorCpu),
    );
    add("    its ratio to that server without it", executorMedian / theirsMedian, "x");
    // The same clients against a handler on the adapter that only answers: the SDK's own time per
    // call is what the bare server on the adapter spends above it, a floor for any MCP route.
    figures.push(await sdkOwnWork(CLIENTS, round("emptyMcp", [], bareAnswer), theirsMedian));

    // tools/list over a 10,000-tool registry: the first page after the registry changed (the
    // catalog is rebuilt), then pages with the catalog built. The handler has served a page before
    // the registry grows, as a running console's has: the first request a process serves compiles
    // the handler's code, which took 40-68 ms of the single timed page this figure was until
    // 2026-12-06 (14-20 ms once the handler had served one). A change is a tool added; the figure
    // is the median of the first pages after ten changes, the first of them the 10,000 tools.
    await load.send(listBase, list);
    await services.registry.addMany(
      Array.from({ length: REGISTRY_TOOLS - services.registry.count() }, (_, i) => ({
        spec: {
          name: `tool_${String(i).padStart(5, "0")}`,
          description: `Tool ${i}`,
          inputSchema: { type: "object", properties: { q: { type: "string" } } },
        },
        handler: () => null,
      })),
    );
    const afterChange: number[] = [];
    for (let change = 0; change < LIST_CHANGES; change++) {
      if (change > 0)
        await services.registry.add({ name: `added_${change}`, description: "Added", inputSchema: { type: "object" } }, () => null);
      const started = performance.now();
      const first = await load.send(listBase, list);
      afterChange.push(performance.now() - started);
      if (!first.includes('"nextCursor"')) throw new Error("the first page of a 10,000-tool registry has no next cursor");
    }
    const warm: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await load.send(listBase, list);
      warm.push(performance.now() - t);
    }
    add(
      `tools/list first page, ${REGISTRY_TOOLS.toLocaleString("en")} tools, just after a change`,
      median(afterChange),
      "ms",
      { max: TARGETS.listMs },
      `median of ${LIST_CHANGES} changes, the slowest ${Math.max(...afterChange).toFixed(1)} ms`,
    );
    add(`tools/list first page, ${REGISTRY_TOOLS.toLocaleString("en")} tools, catalog built`, median(warm), "ms", { max: TARGETS.listMs });
  } finally {
    load.close();
    listServer.closeAllConnections();
    await new Promise((resolve) => listServer.close(resolve));
    local.close();
  }
  const next = await nextRouteAgainstBaselines({
    title: "mcp: the Next route (production build) against an empty route and the bare SDK in a route of the same build",
    protocol: "MCP",
    what: "tools/call",
    // The demo `calculate` tool, a no-op in all but name: tools registered here have no handler in the server's process.
    request: rpc("tools/call", { name: "calculate", arguments: { expression: "1" } }),
    expect: '"structuredContent":{"expression":"1","result":1}',
    barePath: "/api/bench/mcp",
    bareExpect: '"structuredContent":{}',
    target: TARGETS.nextRatio,
    clients: CLIENTS,
    calls: NEXT_CALLS_PER_ROUND,
    rounds: NEXT_ROUNDS,
  });
  return [{ title: "mcp: the handler on bare node:http", figures }, next];
}
