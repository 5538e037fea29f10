// The tool registry at scale (issue 18, part 4): text search at 10k and 100k tools, the first
// page of the plain list at 100k, and GET /api/tools?text=… over HTTP on the node adapter at 15k.
// Tools are written as rows in one transaction (lib/db's ToolRows), not imported one by one.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { consoleApi } from "../lib/api";
import { loadConfig } from "../lib/config";
import { openDatabase } from "../lib/db";
import { ToolRows, type ToolRow } from "../lib/db/tools";
import { createNodeServer, listenLocal } from "../lib/http/node-adapter";
import { silentLogger } from "../lib/log";
import { createServices } from "../lib/services";
import { ToolRegistry } from "../lib/tools";
import { type BenchResult, type Figure, median } from "./support/measure";

const WORDS = ["invoice", "customer", "weather", "ticket", "refund", "order", "shipment", "report", "user", "payment"];
const VERBS = ["create", "list", "get", "update", "delete", "merge", "search", "close"];

/** What people type: common and rare words, two words, a snake_case part, a prefix, a number, nothing found. */
const QUERIES = [
  "refund",
  "customer invoice",
  "number 9999",
  "shipment report",
  "nothing-matches-this",
  "merge_ticket",
  "pay",
  "tool_00500",
  "issues.create",
];

/** `count` tool rows: snake_case names, a dotted title, descriptions of a dozen words. */
function toolRows(count: number): ToolRow[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const word = WORDS[i % WORDS.length]!;
    const verb = VERBS[i % VERBS.length]!;
    return {
      name: i % 2 ? `tool_${String(i).padStart(6, "0")}` : `${verb}_${word}_${i}`,
      title: `github.issues.${verb}_${word}`,
      description: `${word} operation number ${i} for the ${WORDS[(i * 7) % WORDS.length]} service, ${verb}s one ${word}`,
      inputSchema: { type: "object", properties: { id: { type: "string" } } },
      outputSchema: null,
      confirm: false,
      effects: "read",
      idempotent: false,
      openWorld: false,
      timeoutMs: 30_000,
      retries: 0,
      targets: ["agui", "mcp"],
      tags: [WORDS[(i * 3) % WORDS.length]!],
      kind: "builtin",
      sourceId: null,
      binding: null,
      enabled: true,
      approval: "default",
      digest: "d",
      createdAt: now,
      updatedAt: now,
    };
  });
}

/** Median and worst of `rounds` passes over every query, timing `run` (ms). */
async function timeQueries(rounds: number, run: (text: string) => unknown): Promise<{ median: number; worst: number }> {
  for (const text of QUERIES) await run(text);
  const times: number[] = [];
  for (let round = 0; round < rounds; round++)
    for (const text of QUERIES) {
      const started = performance.now();
      await run(text);
      times.push(performance.now() - started);
    }
  const worst = Math.max(...times);
  return { median: median(times), worst };
}

async function benchSearch(count: number, target: number, withFirstPage: boolean): Promise<Figure[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-registry-"));
  const handle = openDatabase(path.join(dir, "console.db"));
  try {
    const built = performance.now();
    await new ToolRows(handle.db).insertMany(toolRows(count));
    const buildMs = performance.now() - built;
    const registry = new ToolRegistry(handle.db);
    const search = await timeQueries(7, (text) => registry.list({ text, limit: 100 }));
    const scale = count.toLocaleString("en");
    const figures: Figure[] = [
      { label: `registry.list({text}) over ${scale} tools, median`, value: search.median, unit: "ms", target: { max: target } },
      { label: `registry.list({text}) over ${scale} tools, worst`, value: search.worst, unit: "ms" },
      { label: `  writing ${scale} tool rows in one transaction`, value: buildMs, unit: "ms" },
    ];
    if (withFirstPage) {
      const pages: number[] = [];
      for (let i = 0; i < 21; i++) {
        const started = performance.now();
        registry.list({ limit: 100 });
        pages.push(performance.now() - started);
      }
      figures.push({
        label: `first page of the tools list (no text) at ${scale}, median`,
        value: median(pages),
        unit: "ms",
        target: { max: 10 },
      });
    }
    return figures;
  } finally {
    handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function benchHttp(count: number): Promise<Figure[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-registry-http-"));
  const services = createServices(
    loadConfig({ LOG_LEVEL: "silent", CONSOLE_DB: path.join(dir, "console.db"), CONSOLE_STATE_DIR: dir, SEED_DEMO: "0" }),
    {
      logger: silentLogger,
    },
  );
  const server = createNodeServer([{ method: "GET", path: "/api/tools", handler: consoleApi(services).tools.list }]);
  try {
    await new ToolRows(services.database.db).insertMany(toolRows(count));
    const url = await listenLocal(server);
    const search = await timeQueries(5, async (text) => {
      const response = await fetch(`${url}/api/tools?text=${encodeURIComponent(text)}`);
      if (response.status !== 200) throw new Error(`GET /api/tools answered ${response.status}`);
      await response.arrayBuffer();
    });
    return [
      {
        label: `GET /api/tools?text=… over HTTP (node adapter), ${count.toLocaleString("en")} tools, median`,
        value: search.median,
        unit: "ms",
        target: { max: 15 },
      },
      { label: `GET /api/tools?text=… worst`, value: search.worst, unit: "ms" },
    ];
  } finally {
    await new Promise((resolve) => server.close(resolve));
    services.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Tool search and listing at 10k, 15k (over HTTP) and 100k tools. */
export default async function benchRegistry(): Promise<BenchResult> {
  return {
    title: "registry: tool search and the first page at scale",
    figures: [...(await benchSearch(10_000, 5, false)), ...(await benchSearch(100_000, 20, true)), ...(await benchHttp(15_000))],
  };
}
