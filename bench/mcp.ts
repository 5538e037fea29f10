// The MCP endpoint over a bare node:http server (lib/http/node-adapter.ts, no Next.js), measured in
// the same run as its baseline: tools/call of a no-op tool from 16 concurrent clients, against a
// bare SDK server (a low-level Server and transport per request, as the SDK's examples build
// them) answering the same tool through the same adapter; and the first tools/list page of a
// 10,000-tool registry. The Next.js half runs the production build (scripts/server.mjs, as `npm
// start` serves it) and sets POST /api/mcp against GET /api/health, the console's nearest thing to
// an empty route, with the same 16 clients; it is skipped when there is no build. An empty handler on
// the same adapter gives the SDK's own time per call, and with it the best ratio any route serving
// the bare SDK could reach.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { consoleApi } from "@/lib/api";
import { loadConfig } from "@/lib/config";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import { SSE_HEADERS } from "@/lib/http/sse";
import { createServices } from "@/lib/services";
import { interleaved, Load, nextRouteAgainstHealth, sdkCeiling, sdkOwnWork, type LoadRequest } from "./support/load";
import { median, type BenchResult, type Figure } from "./support/measure";

const CLIENTS = 16;
const CALLS_PER_ROUND = 2000;
const ROUNDS = 5;
const REGISTRY_TOOLS = 10_000;
const TARGETS = { throughputRatio: 0.8, listMs: 50, nextRatio: 0.9 };
/** Call records written in one commit when timing the record alone: about what one turn of the loop holds at CLIENTS calls in flight. */
const RECORDS_PER_COMMIT = CLIENTS;

const NOOP = {
  name: "noop",
  description: "Does nothing",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  outputSchema: { type: "object", properties: {} },
};

/** A JSON-RPC request to the MCP endpoint (the transport wants both answer types accepted). */
const rpc = (method: string, params: unknown): LoadRequest => ({
  path: "/api/mcp",
  body: () => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  headers: { accept: "application/json, text/event-stream" },
});
const call = rpc("tools/call", { name: "noop", arguments: {} });
/** What the transport sends for that call: one SSE event with the JSON-RPC answer. */
const NOOP_ANSWER = `event: message\ndata: ${JSON.stringify({ result: { content: [{ type: "text", text: "{}" }], structuredContent: {} }, jsonrpc: "2.0", id: 1 })}\n\n`;
const list = rpc("tools/list", {});

// The same refusing validator the console gives its servers, so the baseline does not pay for Ajv either.
const NO_FORM: jsonSchemaValidator = { getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "none" }) };

/** The SDK's own stateless pattern with one tool: a Server and a transport per request. */
const bareHandler: WebHandler = async (request) => {
  const server = new Server({ name: "bare", version: "1" }, { capabilities: { tools: {} }, jsonSchemaValidator: NO_FORM });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [NOOP] }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: "{}" }], structuredContent: {} }));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  return transport.handleRequest(request);
};

export default async function benchMcp(): Promise<BenchResult[]> {
  const figures: Figure[] = [];
  const add = (label: string, value: number, unit: string, target?: Figure["target"], note?: string) =>
    figures.push({ label, value, unit, ...(target && { target }), ...(note && { note }) });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-"));
  const services = createServices(loadConfig({ CONSOLE_DB: path.join(dir, "bench.db"), LOG_LEVEL: "silent" }));
  await services.registry.add(NOOP, () => ({}));
  const endpoint = consoleApi(services).mcp;
  const console_ = createNodeServer([{ method: "POST", path: "/api/mcp", handler: endpoint.post as WebHandler }]);
  const bare = createNodeServer([{ method: "POST", path: "/api/mcp", handler: bareHandler }]);
  // node:http and the adapter alone: what any handler pays before it starts, answering with the
  // bytes the transport sends for the no-op.
  const empty = createNodeServer([
    { method: "POST", path: "/api/mcp", handler: async () => new Response(NOOP_ANSWER, { headers: SSE_HEADERS }) },
  ]);
  const base = await listenLocal(console_);
  const bareBase = await listenLocal(bare);
  const emptyBase = await listenLocal(empty);
  let sdkMs: number | undefined;
  const load = new Load(CLIENTS);
  try {
    for (const answer of [await load.send(base, call), await load.send(bareBase, call)])
      if (!answer.includes('"structuredContent":{}')) throw new Error(`unexpected answer: ${answer}`);
    if ((await load.send(bareBase, call)) !== NOOP_ANSWER) throw new Error("the empty handler's answer is not the bare SDK server's");
    await load.throughput(base, 500, call);
    await load.throughput(bareBase, 500, call);
    const [oursMedian, theirsMedian] = await interleaved(
      ROUNDS,
      () => load.throughput(base, CALLS_PER_ROUND, call),
      () => load.throughput(bareBase, CALLS_PER_ROUND, call),
    );
    add(`tools/call no-op, ${CLIENTS} clients, console handler`, oursMedian, "calls/s");
    add(`tools/call no-op, ${CLIENTS} clients, bare SDK server`, theirsMedian, "calls/s");
    add("ratio console / bare", oursMedian / theirsMedian, "x", { min: TARGETS.throughputRatio });
    // What the console must do that the bare server does not: record each call in call_results (a
    // SQLite insert the executor's memo and the tool's history rely on). Timed alone on the same
    // database, commits and checkpoints included, as a share of the console's time per call.
    const putMicros = recordWriteMicros(services);
    const perCallMicros = 1e6 / oursMedian;
    add(
      "  of which: the call_results write",
      putMicros,
      "µs",
      undefined,
      `${((100 * putMicros) / perCallMicros).toFixed(0)}% of ${perCallMicros.toFixed(0)} µs per call`,
    );
    add("  ratio with that write taken out", 1e6 / (perCallMicros - putMicros) / theirsMedian, "x");
    // The same clients against a handler that only answers: the SDK's own time per call is what the
    // bare server spends above it, a floor for any MCP route (used by the Next half below).
    const own = await sdkOwnWork(load, emptyBase, call, CALLS_PER_ROUND, theirsMedian);
    sdkMs = own.sdkMs;
    figures.push(own.figure);

    // tools/list over a 10,000-tool registry: the first page after the registry changed (the
    // catalog is rebuilt) and a page with the catalog built.
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
    const started = performance.now();
    const first = await load.send(base, list);
    const coldMs = performance.now() - started;
    if (!first.includes('"nextCursor"')) throw new Error("the first page of a 10,000-tool registry has no next cursor");
    const warm: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await load.send(base, list);
      warm.push(performance.now() - t);
    }
    add(`tools/list first page, ${REGISTRY_TOOLS.toLocaleString("en")} tools, just after a change`, coldMs, "ms", { max: TARGETS.listMs });
    add(`tools/list first page, ${REGISTRY_TOOLS.toLocaleString("en")} tools, catalog built`, median(warm), "ms", { max: TARGETS.listMs });
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
    title: "mcp: the Next route (production build) against GET /api/health",
    protocol: "MCP",
    what: "tools/call",
    // The demo `calculate` tool, a no-op in all but name: tools registered here have no handler in the server's process.
    request: rpc("tools/call", { name: "calculate", arguments: { expression: "1" } }),
    expect: '"structuredContent":{"expression":"1","result":1}',
    target: TARGETS.nextRatio,
    clients: CLIENTS,
    calls: CALLS_PER_ROUND,
    rounds: ROUNDS,
    // The SDK's own work per tools/call (measured above on bare node:http) is a floor for any MCP
    // route: health plus that is the best a route serving the bare SDK could do.
    more: sdkCeiling(sdkMs),
  });
  return [{ title: "mcp: the handler on bare node:http", figures }, next];
}

/** Microseconds per call_results insert, as the executor writes it after a call (median of 5 batches). */
function recordWriteMicros(services: ReturnType<typeof createServices>): number {
  const batches: number[] = [];
  const result = { ok: true as const, value: {} };
  for (let batch = 0; batch < 5; batch++) {
    const started = performance.now();
    // Records are written behind, those of one turn of the loop in one transaction: written here
    // RECORDS_PER_COMMIT at a time, as the clients' calls end together (WAL checkpoints included).
    for (let i = 0; i < 1000; i++) {
      void services.callHistory.put(
        { principal: "local", scope: "mcp", callId: `bench-${batch}-${i}-${Math.random()}`, tool: NOOP.name, argsDigest: "d" },
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
