// Figures a person feels, measured in Debian's Chromium against the production build:
// - a thread of 1,000 messages and 500 tool calls renders in under 1.5 s (issue 4);
// - with 10,000 approvals in the database, the first page of GET /api/approvals answers in under
//   50 ms (in-process handler, median) and the inbox renders in under 1 s (issue 5);
// - with 40 such threads, GET /api/threads lists them in under 50 ms (in-process, median), and the
//   runs page's query lists their 40 runs, each given a shared state of ~180 KB, in under 50 ms:
//   both are synchronous on SQLite, so they hold the event loop that long (issue 18);
// - the chat keeps 60 frames per second while a 20,000-delta answer streams in: no long task (over
//   50 ms) from Enter to the finished answer on screen (issue 18).
// Needs a build (`npm run build`, or any `npm start`/`npm test` made one) and /usr/bin/chromium.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Message } from "@ag-ui/core";
import { chromium, type Browser } from "@playwright/test";
import { loadConfig } from "../lib/config";
import { consoleApi } from "../lib/api";
import { createServices } from "../lib/services";
import { CHROMIUM_LAUNCH } from "../e2e/chromium";
import { startBuiltConsole } from "./support/built-console";
import { median, type BenchResult } from "./support/measure";

const root = path.resolve(__dirname, "..");
const CHROMIUM = CHROMIUM_LAUNCH.executablePath;

/** Deltas of the streamed answer, how many answers are streamed (each in a new thread), and the server's pause between deltas. */
const STREAMED_WORDS = 20_000;
const STREAMED_ANSWERS = 3;
const STREAM_DELAY_MS = 1;
/** Calls of each list timed in-process. */
const IN_PROCESS_CALLS = 25;
/** Threads in the database, each as long as the one rendered: the chat lists 40 recent ones. */
const LISTED_THREADS = 40;
/** The state each seeded run is given, as a client sharing a document with its agent sends it. */
const SHARED_STATE = {
  title: "Draft",
  sections: Array.from({ length: 400 }, (_, i) => ({ id: `s${i}`, heading: `Section ${i}`, text: `Paragraph ${i} `.repeat(30) })),
};

export default async function benchBrowser(): Promise<BenchResult | BenchResult[]> {
  if (!fs.existsSync(path.join(root, ".next", "BUILD_ID")) || !fs.existsSync(CHROMIUM)) {
    return { title: "browser", figures: [], skipped: `needs a production build (npm run build) and Chromium at ${CHROMIUM}` };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-browser-"));
  const dbFile = path.join(dir, "bench.db");
  const services = createServices(loadConfig({ CONSOLE_DB: dbFile, CONSOLE_STATE_DIR: dir, LOG_LEVEL: "silent" }));
  // The thread rendered, and 39 more like it in the chat's list of recent threads.
  const conversation = benchConversation(1000, 500);
  const conversationKb = JSON.stringify(conversation).length / 1024;
  const threadId = await seedThread(services, conversation, 0);
  for (let i = 1; i < LISTED_THREADS; i++) await seedThread(services, conversation, i);
  await seedApprovals(services, 10_000);
  const threadsApi = consoleApi(services).threads;
  const threadListMs = await inProcessMs(async () => {
    const response = await threadsApi.listThreads(
      new Request(`http://127.0.0.1/api/threads?limit=${LISTED_THREADS}`, { headers: { host: "127.0.0.1" } }),
    );
    if ((await response.json()).threads.length !== LISTED_THREADS) throw new Error("GET /api/threads listed too few threads");
  });
  // As the runs page (app/(console)/runs/page.tsx) lists them.
  const runListMs = await inProcessMs(async () => {
    if ((await services.runs.listRuns({ limit: 50 })).items.length !== LISTED_THREADS) throw new Error("listRuns listed too few runs");
  });
  const api = consoleApi(services).approvals;
  const listMs = await inProcessMs(async () => {
    const response = await api.list(
      new Request("http://127.0.0.1/api/approvals?status=pending&limit=50", { headers: { host: "127.0.0.1" } }),
    );
    await response.json();
  });
  services.close();

  const console_ = await startBuiltConsole({ database: dbFile, env: { AGENT_STREAM_DELAY_MS: String(STREAM_DELAY_MS) } });
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
    const streamed: StreamedAnswer[] = [];
    for (let i = 0; i < STREAMED_ANSWERS; i++) streamed.push(await streamAnswer(browser, base, STREAMED_WORDS));
    return [
      {
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
            note: `in-process, median of ${IN_PROCESS_CALLS}`,
          },
          {
            label: `GET /api/threads, ${LISTED_THREADS} threads of ${Math.round(conversationKb)} KB conversations`,
            value: median(threadListMs),
            unit: "ms",
            target: { max: 50 },
            note: `in-process, median of ${IN_PROCESS_CALLS}`,
          },
          {
            label: `runs page's list (50 a page), ${LISTED_THREADS} runs given ${Math.round(JSON.stringify(SHARED_STATE).length / 1024)} KB of state`,
            value: median(runListMs),
            unit: "ms",
            target: { max: 50 },
            note: `in-process, median of ${IN_PROCESS_CALLS}`,
          },
          {
            label: "approvals inbox rendered, 10,000 in DB",
            value: median(inboxMs),
            unit: "ms",
            target: { max: 1000 },
            note: "performance mark, median of 3",
          },
        ],
      },
      streamingFigures(streamed),
    ];
  } finally {
    await browser.close();
    await console_.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The times of IN_PROCESS_CALLS calls of `call`, one after another, in ms. */
async function inProcessMs(call: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < IN_PROCESS_CALLS; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return times;
}

/** A conversation of `messageCount` user and assistant messages, holding `toolCalls` tool calls with results. */
function benchConversation(messageCount: number, toolCalls: number): Message[] {
  const messages: Message[] = [];
  let calls = 0;
  for (let i = 0; messages.length - calls < messageCount; i++) {
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
  return messages;
}

/** The `n`th stored thread: one finished run, given SHARED_STATE, that left `messages`. */
async function seedThread(services: ReturnType<typeof createServices>, messages: Message[], n: number): Promise<string> {
  const threadId = `bench-thread-${Date.now()}-${n}`;
  const runId = `bench-run-${Date.now()}-${n}`;
  await services.runs.start({ runId, threadId, agent: "demo", principal: "local", title: "bench thread", inputState: SHARED_STATE });
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

/** What one streamed answer cost the page, from the Enter that sent it to the finished answer on screen. */
interface StreamedAnswer {
  longTasks: number;
  longestTaskMs: number;
  framesPerSecond: number;
  durationMs: number;
  longestFrameGapMs: number;
}

/** The page's own record (window.probe), kept by PROBE from before the Enter that sends. */
interface Probe {
  sentAt?: number;
  endedAt?: number;
  frames: number[];
  longTasks: Array<{ start: number; duration: number }>;
}

/**
 * Installed in the page before sending: long tasks (buffered), the time of the Enter that sends, every
 * frame, and the frame in which the run status first reads "finished". Plain JavaScript text, since
 * tsx names the functions it compiles with a helper (__name) that the page does not have.
 */
const PROBE = `(() => {
  const probe = { frames: [], longTasks: [] };
  window.probe = probe;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) probe.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: "longtask", buffered: true });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && probe.sentAt === undefined) probe.sentAt = performance.now();
  }, true);
  const status = document.querySelector('[aria-label="Run status"]');
  requestAnimationFrame(function frame(time) {
    probe.frames.push(time);
    if (probe.sentAt !== undefined && probe.endedAt === undefined && status?.textContent === "finished") probe.endedAt = time;
    requestAnimationFrame(frame);
  });
})()`;

/**
 * Opens /chat (a new thread) at 1280x900, types `/stream <words>` and Enter as a person would, and
 * watches every frame until the run is finished and the whole answer is on screen. Throws when the
 * answer on screen is not the `words` words asked for.
 */
async function streamAnswer(browser: Browser, base: string, words: number): Promise<StreamedAnswer> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await page.goto(`${base}/chat`);
    await page.waitForFunction(() => performance.getEntriesByName("agui-console:thread-rendered").length > 0);
    await page.evaluate(PROBE);
    const composer = page.getByRole("textbox", { name: "Message" });
    await composer.pressSequentially(`/stream ${words}`);
    await composer.press("Enter");
    // Polled on a timer, not per frame: the wait must not add work to the frames it measures.
    await page.waitForFunction(() => (window as unknown as { probe: Probe }).probe.endedAt !== undefined, undefined, {
      polling: 250,
      timeout: 300_000,
    });
    const answer = page.locator('[data-role="assistant"]').last();
    const shown = (await answer.innerText()).split(/\s+/).filter(Boolean).length;
    if (shown !== words || (await answer.locator("[aria-busy]").count()) > 0)
      throw new Error(`the finished answer shows ${shown} words, not ${words} (or still streams)`);
    const probe = await page.evaluate(() => (window as unknown as { probe: Probe }).probe);
    const sentAt = probe.sentAt!;
    const endedAt = probe.endedAt!;
    const during = probe.longTasks.filter((task) => task.start < endedAt && task.start + task.duration > sentAt);
    const frames = probe.frames.filter((time) => time > sentAt && time <= endedAt);
    let longestFrameGapMs = 0;
    for (let i = 1; i < probe.frames.length; i++)
      if (probe.frames[i]! > sentAt && probe.frames[i - 1]! < endedAt)
        longestFrameGapMs = Math.max(longestFrameGapMs, probe.frames[i]! - probe.frames[i - 1]!);
    return {
      longTasks: during.length,
      longestTaskMs: Math.max(0, ...during.map((task) => task.duration)),
      framesPerSecond: frames.length / ((endedAt - sentAt) / 1000),
      durationMs: endedAt - sentAt,
      longestFrameGapMs,
    };
  } finally {
    await page.close();
  }
}

function streamingFigures(answers: StreamedAnswer[]): BenchResult {
  const spread = (pick: (answer: StreamedAnswer) => number, digits = 0) => {
    const values = answers.map(pick);
    return `median of ${values.length}, runs: ${values.map((value) => value.toFixed(digits)).join(", ")}`;
  };
  const worst = (pick: (answer: StreamedAnswer) => number) => Math.max(...answers.map(pick));
  const middle = (pick: (answer: StreamedAnswer) => number) => median(answers.map(pick));
  return {
    title: `browser: /chat at 1280x900 while a ${STREAMED_WORDS.toLocaleString("en")}-delta answer streams in (AGENT_STREAM_DELAY_MS=${STREAM_DELAY_MS})`,
    figures: [
      {
        label: "long tasks (over 50 ms) from Enter to the finished answer",
        value: worst((a) => a.longTasks),
        unit: "",
        target: { max: 0 },
        note: `worst of ${answers.length}, runs: ${answers.map((a) => a.longTasks).join(", ")}`,
      },
      { label: "  longest task", value: worst((a) => a.longestTaskMs), unit: "ms", note: `worst; ${spread((a) => a.longestTaskMs)}` },
      {
        label: "frames per second while streaming",
        value: middle((a) => a.framesPerSecond),
        unit: "fps",
        target: { min: 55 },
        note: `requestAnimationFrame count / seconds; ${spread((a) => a.framesPerSecond, 1)}`,
      },
      {
        label: "  longest gap between frames",
        value: middle((a) => a.longestFrameGapMs),
        unit: "ms",
        note: spread((a) => a.longestFrameGapMs),
      },
      {
        label: "  streaming, Enter to finished answer on screen",
        value: middle((a) => a.durationMs),
        unit: "ms",
        note: spread((a) => a.durationMs),
      },
    ],
  };
}
