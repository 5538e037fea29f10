import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../lib/config";
import { importOpenApi } from "../lib/integrations/openapi";
import { silentLogger } from "../lib/log";
import { createServices, type Services } from "../lib/services";
import type { BenchResult, Figure } from "./support/measure";

const IMPORT_OPERATIONS = 2_000;
const IMPORT_BUDGET_MS = 3_000;
const IMPORT_BUDGET_RSS_MB = 300;
const SEARCH_TOOLS = 10_000;
const SEARCH_BUDGET_MS = 30;

/** An OpenAPI 3.0 document with `operations` operations (half GET with parameters, half POST with a $ref body). */
function generatedDocument(operations: number): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < operations / 2; i++) {
    paths[`/resources${i}/{id}`] = {
      get: {
        operationId: `getResource${i}`,
        summary: `Read resource ${i}`,
        tags: [`group${i % 20}`],
        parameters: [
          { name: "id", in: "path", required: true, description: "Resource id", schema: { type: "string" } },
          { name: "expand", in: "query", schema: { type: "array", items: { type: "string", enum: ["owner", "tags"] } } },
          { name: "X-Trace", in: "header", schema: { type: "string" } },
        ],
        responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Resource" } } } } },
      },
      post: {
        operationId: `updateResource${i}`,
        summary: `Update resource ${i}`,
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/ResourceInput" } } } },
        responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Resource" } } } } },
      },
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: "Generated", version: "1" },
    servers: [{ url: "https://api.example.com" }],
    paths,
    components: {
      schemas: {
        ResourceInput: {
          type: "object",
          required: ["name"],
          properties: { name: { type: "string" }, note: { type: "string", nullable: true }, owner: { $ref: "#/components/schemas/Owner" } },
        },
        Resource: {
          allOf: [
            { $ref: "#/components/schemas/ResourceInput" },
            {
              type: "object",
              properties: {
                id: { type: "string", readOnly: true },
                children: { type: "array", items: { $ref: "#/components/schemas/Resource" } },
              },
            },
          ],
        },
        Owner: { type: "object", properties: { id: { type: "integer" }, email: { type: "string", format: "email" } } },
      },
    },
  };
}

function freshServices(): { services: Services; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-openapi-"));
  const services = createServices(loadConfig({ LOG_LEVEL: "silent", CONSOLE_DB: path.join(dir, "console.db"), SEED_DEMO: "0" }), {
    logger: silentLogger,
  });
  return { services, dir };
}

async function benchImport(): Promise<Figure[]> {
  const { services, dir } = freshServices();
  try {
    const text = JSON.stringify(generatedDocument(IMPORT_OPERATIONS));
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const started = performance.now();
    const result = await importOpenApi(services, { text }, { prefix: "gen_" });
    const ms = performance.now() - started;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const mb = peak / 1024 / 1024;
    return [
      {
        label: `import ${result.tools.length} operations (${(text.length / 1024).toFixed(0)} KB)`,
        value: ms,
        unit: "ms",
        target: { max: IMPORT_BUDGET_MS },
      },
      { label: "peak resident memory during the import", value: mb, unit: "MB", target: { max: IMPORT_BUDGET_RSS_MB } },
    ];
  } finally {
    services.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function benchSearch(): Promise<Figure[]> {
  const { services, dir } = freshServices();
  try {
    const words = ["invoice", "customer", "weather", "ticket", "refund", "order", "shipment", "report", "user", "payment"];
    const inputs = Array.from({ length: SEARCH_TOOLS }, (_, i) => ({
      spec: {
        name: `tool_${String(i).padStart(5, "0")}`,
        description: `${words[i % words.length]} operation number ${i} for the ${words[(i * 7) % words.length]} service`,
        inputSchema: { type: "object", properties: { id: { type: "string" } } },
        policy: { tags: [words[(i * 3) % words.length]!] },
      },
    }));
    await services.registry.addMany(inputs);
    const queries = ["refund", "customer invoice", "number 9999", "shipment report", "nothing-matches-this", "tool_0500"];
    services.registry.list({ text: queries[0] });
    const times: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const text of queries) {
        const started = performance.now();
        services.registry.list({ text, limit: 100 });
        times.push(performance.now() - started);
      }
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    const worst = times.at(-1)!;
    return [
      {
        label: `registry.list({text}) over ${SEARCH_TOOLS.toLocaleString("en")} tools, median`,
        value: median,
        unit: "ms",
        target: { max: SEARCH_BUDGET_MS },
      },
      {
        label: `registry.list({text}) over ${SEARCH_TOOLS.toLocaleString("en")} tools, worst`,
        value: worst,
        unit: "ms",
        target: { max: SEARCH_BUDGET_MS },
      },
    ];
  } finally {
    services.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** OpenAPI import of a generated 2,000-operation document, and registry text search over 10,000 tools. */
export async function benchOpenApi(): Promise<BenchResult> {
  return {
    title: "openapi: importing a generated document, and searching the registry",
    figures: [...(await benchImport()), ...(await benchSearch())],
  };
}

export default benchOpenApi;
