// Figures a person feels, measured in Debian's Chromium against the production build:
// - a thread of 1,000 messages and 500 tool calls renders in under 1.5 s (issue 4);
// - with 10,000 approvals in the database, the first page of GET /api/approvals answers in under
//   50 ms (in-process handler, median) and the inbox renders in under 1 s (issue 5).
// Needs a build (`npm run build`, or any `npm start`/`npm test` made one) and /usr/bin/chromium.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Message } from "@ag-ui/core";
import { chromium } from "@playwright/test";
import { loadConfig } from "../lib/config";
import { consoleApi } from "../lib/api";
import { createServices } from "../lib/services";
import { CHROMIUM_LAUNCH } from "../e2e/chromium";
import { startBuiltConsole } from "./support/built-console";
import { median, type BenchResult } from "./support/measure";

const root = path.resolve(__dirname, "..");
const CHROMIUM = CHROMIUM_LAUNCH.executablePath;

export default async function benchBrowser(): Promise<BenchResult> {
  if (!fs.existsSync(path.join(root, ".next", "BUILD_ID")) || !fs.existsSync(CHROMIUM)) {
    return { title: "browser", figures: [], skipped: `needs a production build (npm run build) and Chromium at ${CHROMIUM}` };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-browser-"));
  const dbFile = path.join(dir, "bench.db");
  const services = createServices(loadConfig({ CONSOLE_DB: dbFile, LOG_LEVEL: "silent" }));
  const threadId = await seedThread(services, 1000, 500);
  await seedApprovals(services, 10_000);
  const api = consoleApi(services).approvals;
  const listMs: number[] = [];
  for (let i = 0; i < 25; i++) {
    const started = performance.now();
    const response = await api.list(
      new Request("http://127.0.0.1/api/approvals?status=pending&limit=50", { headers: { host: "127.0.0.1" } }),
    );
    await response.json();
    listMs.push(performance.now() - started);
  }
  services.close();

  const console_ = await startBuiltConsole({ database: dbFile });
  const { base } = console_;
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  try {
    const page = await browser.newPage();
    const rendered = async (url: string, mark: string, ready: string): Promise<number> => {
      await page.goto(url);
      await page.locator(ready).first().waitFor();
      // The mark is set once React has hydrated and committed the page.
      await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, mark, { timeout: 30_000 });
      return page.evaluate((name) => performance.getEntriesByName(name)[0]!.startTime, mark);
    };
    // Warm the routes once so the figures are not the server's first compile of each page.
    await rendered(`${base}/chat/${threadId}`, "agui-console:thread-rendered", '[data-role="assistant"]');
    await rendered(`${base}/approvals`, "agui-console:inbox-rendered", "[data-approval-id]");
    const threadMs: number[] = [];
    const inboxMs: number[] = [];
    let counted = 0;
    for (let i = 0; i < 3; i++) {
      threadMs.push(await rendered(`${base}/chat/${threadId}`, "agui-console:thread-rendered", '[data-role="assistant"]'));
      counted = await page.locator('[data-role="user"], [data-role="assistant"], article[data-tool-call-id]').count();
      inboxMs.push(await rendered(`${base}/approvals`, "agui-console:inbox-rendered", "[data-approval-id]"));
    }
    return {
      title: `browser: Chromium against the production build (thread: ${counted} messages and tool-call entries on screen)`,
      figures: [
        {
          label: "thread of 1,000 messages, 500 tool calls rendered",
          value: median(threadMs),
          unit: "ms",
          target: { max: 1500 },
          note: "performance mark after first render, median of 3",
        },
        {
          label: "GET /api/approvals first page, 10,000 in DB",
          value: median(listMs),
          unit: "ms",
          target: { max: 50 },
          note: "in-process, median of 25",
        },
        {
          label: "approvals inbox rendered, 10,000 in DB",
          value: median(inboxMs),
          unit: "ms",
          target: { max: 1000 },
          note: "performance mark, median of 3",
        },
      ],
    };
  } finally {
    await browser.close();
    await console_.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A stored thread: `turns` user/assistant exchanges holding `toolCalls` tool calls with results. */
async function seedThread(services: ReturnType<typeof createServices>, messageCount: number, toolCalls: number): Promise<string> {
  const threadId = `bench-thread-${Date.now()}`;
  const messages: Message[] = [];
  let calls = 0;
  for (let i = 0; messages.filter((m) => m.role !== "tool").length < messageCount; i++) {
    messages.push({ id: `u${i}`, role: "user", content: `Question ${i}: weather in city ${i} and a **refund**?` });
    const withCall = calls < toolCalls;
    const callId = `call_${i}`;
    messages.push({
      id: `a${i}`,
      role: "assistant",
      content: `Answer ${i}: here is a *short* reply with a [link](https://example.com) and some \`code\`.`,
      ...(withCall
        ? {
            toolCalls: [
              {
                id: callId,
                type: "function" as const,
                function: { name: "get_weather", arguments: JSON.stringify({ city: `City ${i}` }) },
              },
            ],
          }
        : {}),
    });
    if (withCall) {
      calls++;
      messages.push({
        id: `t${i}`,
        role: "tool",
        toolCallId: callId,
        content: JSON.stringify({ ok: true, value: { city: `City ${i}`, temperature: i % 30, conditions: "sunny" } }),
      });
    }
  }
  const runId = `bench-run-${Date.now()}`;
  await services.runs.start({ runId, threadId, agent: "demo", principal: "local", title: "bench thread" });
  await services.runs.finish(runId, { status: "finished", messages, state: {} });
  return threadId;
}

async function seedApprovals(services: ReturnType<typeof createServices>, count: number): Promise<void> {
  // On SQLite each request writes its row within the call (before its first await), so one outer
  // transaction still holds all 10,000 writes; the promises are awaited once it has committed.
  const requested: Array<Promise<unknown>> = [];
  const write = services.database.sqlite.transaction(() => {
    for (let i = 0; i < count; i++)
      requested.push(
        services.approvals.request({
          principal: "bench",
          scope: "bench",
          callId: `c${i}`,
          tool: "issue_refund",
          args: { orderId: `${i}`, amount: (i % 90) + 1 },
          surface: i % 3 ? "agui" : "mcp",
          threadId: `t${i % 50}`,
        }),
      );
  });
  write();
  await Promise.all(requested);
}
