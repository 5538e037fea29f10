import { randomUUID } from "node:crypto";
import http from "node:http";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFunction } from "@/lib/agents";
import { AGENT_QUEUE_CAPACITY } from "@/lib/agents/agent-function";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { userMessage } from "../support/agui-client";

const STALL_MS = 3000;
/**
 * Text a run may have produced when its reader stopped: the agent's queue (AGENT_QUEUE_CAPACITY
 * events, each joining up to 32 deltas while the reader is behind) and the socket buffers on
 * loopback (a few MB). An agent that backpressure did not hold would be far past it.
 */
const HELD_TEXT_LIMIT = 16 * 1024 * 1024;

/** The text of the TEXT_MESSAGE_CONTENT events among `events`, in characters. */
function textOf(events: ReadonlyArray<{ type: string }>): number {
  return events.reduce((n, e) => n + (e.type === EventType.TEXT_MESSAGE_CONTENT ? (e as unknown as { delta: string }).delta.length : 0), 0);
}
let server: AguiTestServer;

/** Deltas the endless agent below has streamed, and whether its signal aborted. */
const endless = { deltas: 0, aborted: false, ended: false };

beforeAll(async () => {
  server = await startAguiServer({ AGENT_STREAM_DELAY_MS: "0", AGUI_STALL_MS: String(STALL_MS) });
  // An agent that streams until it is stopped: only backpressure can hold it.
  server.services.agents.add(
    agentFunction(
      {
        name: "endless",
        description: "streams until stopped",
        model: "none",
        capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false },
      },
      async (run) => {
        const item = run.openText();
        try {
          for (;;) {
            await item.append("word ");
            endless.deltas++;
          }
        } finally {
          endless.aborted = run.ctx.signal.aborted;
          endless.ended = true;
        }
      },
    ),
  );
});
afterAll(() => server?.close());

/**
 * POST a run and read only the first chunk of the answer, then stop reading (the socket stays
 * open). Resolves with a function that closes the connection.
 */
function startAndStopReading(agent: string, text: string): Promise<{ runId: string; close(): void }> {
  const runId = `r-${randomUUID()}`;
  const body = JSON.stringify({
    threadId: `t-${randomUUID()}`,
    runId,
    messages: [userMessage(text)],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });
  const target = new URL(`${server.url}/api/agui/${agent}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.once("data", () => {
          res.pause();
          resolve({ runId, close: () => req.destroy() });
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNRESET") reject(error);
    });
    req.end(body);
  });
}

/** Sample `read` every 50 ms until it gives the same value for `quietMs`; the value then. */
async function settled(read: () => number | Promise<number>, quietMs: number, deadlineMs: number): Promise<number> {
  const started = Date.now();
  let last = await read();
  let since = Date.now();
  while (Date.now() - started < deadlineMs) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await read();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return now;
  }
  throw new Error(`still changing after ${deadlineMs} ms (at ${last})`);
}

async function until(check: () => boolean | Promise<boolean>, deadlineMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > deadlineMs) throw new Error(`not reached within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a client that stops reading", () => {
  it("pauses the /stream 5000000 demo run (the agent stops producing), then the run is cancelled after AGUI_STALL_MS", async () => {
    const client = await startAndStopReading("demo", "/stream 5000000");
    try {
      const recorded = () => server.services.runs.events(client.runId);
      // The agent stops producing long before its 5,000,000 words (about 30 MB), while the run is
      // still going: what it produced is what the socket's buffers and the agent's queue hold.
      const pausedText = await settled(async () => textOf(await recorded()), 400, STALL_MS - 200);
      const paused = (await recorded()).length;
      expect((await server.services.runs.getRun(client.runId))?.status).toBe("running");
      expect(pausedText).toBeLessThan(HELD_TEXT_LIMIT);

      await until(async () => (await server.services.runs.getRun(client.runId))?.status !== "running", STALL_MS + 2000);
      const run = (await server.services.runs.getRun(client.runId))!;
      expect(run).toMatchObject({ status: "cancelled", outcome: { type: "cancelled" }, error: expect.stringMatching(/took nothing/) });
      const events = await server.services.runs.events(client.runId);
      expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "cancelled" } });
      // After the pause: what waited in the agent's bounded queue, then the close of its message and run.
      expect(events.length - paused).toBeLessThan(AGENT_QUEUE_CAPACITY + 10);
    } finally {
      client.close();
    }
  });

  it("holds an endless agent at its next delta, aborts its signal after the stall, and records the run as cancelled", async () => {
    const client = await startAndStopReading("endless", "go");
    try {
      const paused = await settled(() => endless.deltas, 400, STALL_MS - 200);
      expect(endless.ended).toBe(false);
      expect(paused * "word ".length).toBeLessThan(HELD_TEXT_LIMIT);
      await until(() => endless.ended, STALL_MS + 2000);
      expect(endless.aborted).toBe(true);
      expect(endless.deltas - paused).toBeLessThanOrEqual(1);
      await until(async () => (await server.services.runs.getRun(client.runId))?.status !== "running", 1000);
      expect((await server.services.runs.getRun(client.runId))?.status).toBe("cancelled");
    } finally {
      client.close();
    }
  });

  it("a client that reads slowly but steadily is not cancelled", async () => {
    const runId = `r-${randomUUID()}`;
    const response = await fetch(`${server.url}/api/agui/demo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: `t-${randomUUID()}`,
        runId,
        messages: [userMessage("/stream 20000")],
        tools: [],
        context: [],
      }),
    });
    const reader = response.body!.getReader();
    let reads = 0;
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
      // Pauses shorter than the stall limit, many times over.
      if (++reads % 20 === 0) await new Promise((resolve) => setTimeout(resolve, STALL_MS / 3));
    }
    expect((await server.services.runs.getRun(runId))?.status).toBe("finished");
  }, 60_000);
});
