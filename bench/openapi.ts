import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../lib/config";
import { importOpenApi } from "../lib/integrations/openapi";
import { silentLogger } from "../lib/log";
import { createServices, type Services } from "../lib/services";
import { generatedDocument } from "./support/generated-openapi";
import type { BenchResult, Figure } from "./support/measure";

const IMPORT_OPERATIONS = 2_000;
const IMPORT_BUDGET_MS = 3_000;
const IMPORT_BUDGET_RSS_MB = 300;
const SEARCH_TOOLS = 10_000;
const SEARCH_BUDGET_MS = 30;

function freshServices(): { services: Services; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-openapi-"));
  const services = createServices(
    loadConfig({ LOG_LEVEL: "silent", CONSOLE_DB: path.join(dir, "console.db"), CONSOLE_STATE_DIR: dir, SEED_DEMO: "0" }),
    {
      logger: silentLogger,
    },
  );
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
    services.registry.addMany(inputs);
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
