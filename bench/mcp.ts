// The MCP endpoint over a bare node:http server (lib/http/node-adapter.ts, no Next.js), measured in
// the same run as its baseline: tools/call of a no-op tool from 16 concurrent clients, against a
// bare SDK server (a low-level Server and transport per request, as the SDK's examples build
// them) answering the same tool through the same adapter; and the first tools/list page of a
// 10,000-tool registry. The Next.js half runs the production build (scripts/server.mjs, as `npm
// start` serves it) and sets POST /api/mcp against GET /api/health, the console's nearest thing to
// an empty route, with the same 16 clients; it is skipped when there is no build.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { consoleApi } from "@/lib/api";
import { loadConfig } from "@/lib/config";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import { createServices } from "@/lib/services";
import { hasBuild, startBuiltConsole } from "./support/built-console";
import { median, type BenchResult, type Figure } from "./support/measure";

const CLIENTS = 16;
const CALLS_PER_ROUND = 2000;
const ROUNDS = 5;
const REGISTRY_TOOLS = 10_000;
const TARGETS = { throughputRatio: 0.8, listMs: 50, nextRatio: 0.9 };

const NOOP = {
  name: "noop",
  description: "Does nothing",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  outputSchema: { type: "object", properties: {} },
};

const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "noop", arguments: {} } });
const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

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

const newAgent = () => new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
let agent = newAgent();

/** POST `body` to the MCP endpoint at `base`; with no body, GET `path` instead. Resolves with the answer's text. */
function post(base: string, body: string | undefined, path = "/api/mcp"): Promise<string> {
  const url = new URL(`${base}${path}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: body === undefined ? "GET" : "POST",
        headers:
          body === undefined
            ? {}
            : {
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
                "content-length": Buffer.byteLength(body),
              },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${res.statusCode}: ${text}`))));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Requests per second with CLIENTS requests always in flight: POST `body` to the MCP endpoint, or GET `path`. */
async function throughput(base: string, calls: number, { body, path }: { body?: string; path?: string } = { body: call }): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next++ < calls) await post(base, body, path);
    }),
  );
  return (calls * 1000) / (performance.now() - started);
}

export default async function benchMcp(): Promise<BenchResult[]> {
  const figures: Figure[] = [];
  const add = (label: string, value: number, unit: string, target?: Figure["target"], note?: string) =>
    figures.push({ label, value, unit, ...(target && { target }), ...(note && { note }) });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-"));
  const services = createServices(loadConfig({ CONSOLE_DB: path.join(dir, "bench.db"), LOG_LEVEL: "silent" }));
  services.registry.add(NOOP, () => ({}));
  const endpoint = consoleApi(services).mcp;
  const console_ = createNodeServer([{ method: "POST", path: "/api/mcp", handler: endpoint.post as WebHandler }]);
  const bare = createNodeServer([{ method: "POST", path: "/api/mcp", handler: bareHandler }]);
  const base = await listenLocal(console_);
  const bareBase = await listenLocal(bare);
  try {
    for (const answer of [await post(base, call), await post(bareBase, call)])
      if (!answer.includes('"structuredContent":{}')) throw new Error(`unexpected answer: ${answer}`);
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
    add(`tools/call no-op, ${CLIENTS} clients, console handler`, oursMedian, "calls/s");
    add(`tools/call no-op, ${CLIENTS} clients, bare SDK server`, theirsMedian, "calls/s");
    add("ratio console / bare", oursMedian / theirsMedian, "x", { min: TARGETS.throughputRatio });
    // What the console must do that the bare server does not: record each call in call_results (a
    // SQLite insert the executor's memo and the tool's history rely on). Timed alone on the same
    // database, as a share of the console's time per call.
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

    // tools/list over a 10,000-tool registry: the first page after the registry changed (the
    // catalog is rebuilt) and a page with the catalog built.
    services.registry.addMany(
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
    const first = await post(base, list);
    const coldMs = performance.now() - started;
    if (!first.includes('"nextCursor"')) throw new Error("the first page of a 10,000-tool registry has no next cursor");
    const warm: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await post(base, list);
      warm.push(performance.now() - t);
    }
    add(`tools/list first page, ${REGISTRY_TOOLS.toLocaleString("en")} tools, just after a change`, coldMs, "ms", { max: TARGETS.listMs });
    add(`tools/list first page, ${REGISTRY_TOOLS.toLocaleString("en")} tools, catalog built`, median(warm), "ms", { max: TARGETS.listMs });
  } finally {
    agent.destroy();
    console_.closeAllConnections();
    bare.closeAllConnections();
    await Promise.all([console_, bare].map((s) => new Promise((resolve) => s.close(resolve))));
    services.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return [{ title: "mcp: the handler on bare node:http", figures }, await benchNext()];
}

/** Microseconds per call_results insert, as the executor writes it after a call (median of 5 batches). */
function recordWriteMicros(services: ReturnType<typeof createServices>): number {
  const batches: number[] = [];
  const result = { ok: true as const, value: {} };
  for (let batch = 0; batch < 5; batch++) {
    const started = performance.now();
    for (let i = 0; i < 1000; i++)
      services.callHistory.put(
        { principal: "local", scope: "mcp", callId: `bench-${batch}-${i}-${Math.random()}`, tool: NOOP.name, argsDigest: "d" },
        result,
        0.1,
        {},
      );
    batches.push((performance.now() - started) / 1000);
  }
  return median(batches) * 1000;
}

/**
 * The Next.js half: the production build served by scripts/server.mjs, POST /api/mcp (tools/call
 * of the demo `calculate` tool, a no-op in all but name) against GET /api/health, the nearest thing
 * the console has to an empty route (it answers a few bytes after a `select 1` and a rolled-back
 * write probe, tens of µs). Both pay Next's own per-request cost; their ratio says how much the MCP
 * handler adds on top. Rounds alternate, as above.
 */
async function benchNext(): Promise<BenchResult> {
  const title = "mcp: the Next route (production build) against GET /api/health";
  if (!hasBuild()) return { title, figures: [], skipped: "needs a production build (npm run build)" };
  const console_ = await startBuiltConsole();
  const { base } = console_;
  const figures: Figure[] = [];
  // The handler half destroyed its agent with its sockets: the Next half gets its own.
  agent = newAgent();
  try {
    const calc = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "calculate", arguments: { expression: "1" } },
    });
    const answer = await post(base, calc);
    if (!answer.includes('"structuredContent":{"expression":"1","result":1}')) throw new Error(`unexpected answer: ${answer}`);
    await throughput(base, 500, { body: calc });
    await throughput(base, 500, { path: "/api/health" });
    const route: number[] = [];
    const empty: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2) empty.push(await throughput(base, CALLS_PER_ROUND, { path: "/api/health" }));
      route.push(await throughput(base, CALLS_PER_ROUND, { body: calc }));
      if (!(round % 2)) empty.push(await throughput(base, CALLS_PER_ROUND, { path: "/api/health" }));
    }
    const routeMedian = median(route);
    const emptyMedian = median(empty);
    figures.push(
      { label: `tools/call, ${CLIENTS} clients, POST /api/mcp`, value: routeMedian, unit: "calls/s" },
      { label: `${CLIENTS} clients, GET /api/health`, value: emptyMedian, unit: "requests/s" },
      { label: "ratio MCP route / health route", value: routeMedian / emptyMedian, unit: "x", target: { min: TARGETS.nextRatio } },
      {
        label: "  time per request: MCP route, health route",
        value: 1000 / routeMedian,
        unit: "ms",
        note: `health ${(1000 / emptyMedian).toFixed(2)} ms: the MCP handler adds ${(1000 / routeMedian - 1000 / emptyMedian).toFixed(2)} ms`,
      },
    );
  } finally {
    agent.destroy();
    await console_.stop();
  }
  return { title, figures };
}
