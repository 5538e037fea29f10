// The MCP endpoint over a bare node:http server (lib/http/node-adapter.ts, no Next.js), measured in
// the same run as its baseline: tools/call of a no-op tool from 16 concurrent clients, against a
// bare SDK server (a low-level Server and transport per request, as the SDK's examples build
// them) answering the same tool through the same adapter; and the first tools/list page of a
// 10,000-tool registry. The Next.js half of the benchmark (the route against an empty
// route) needs a production build and a route that answers nothing, so it is not measured here.
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
import { median, type BenchResult, type Figure } from "./support/measure";

const CLIENTS = 16;
const CALLS_PER_ROUND = 2000;
const ROUNDS = 5;
const REGISTRY_TOOLS = 10_000;
const TARGETS = { throughputRatio: 0.8, listMs: 50 };

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

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

function post(base: string, body: string): Promise<string> {
  const url = new URL(`${base}/api/mcp`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: {
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

/** Calls per second with CLIENTS requests always in flight. */
async function throughput(base: string, calls: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next++ < calls) await post(base, call);
    }),
  );
  return (calls * 1000) / (performance.now() - started);
}

export default async function benchMcp(): Promise<BenchResult> {
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
  return { title: "mcp", figures };
}
