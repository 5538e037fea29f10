import { randomUUID } from "node:crypto";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { parseFrames, userMessage } from "../support/agui-client";

let server: AguiTestServer;

beforeAll(async () => {
  server = await startAguiServer({ AGENT_STREAM_DELAY_MS: "5" });
});
afterAll(() => server?.close());

/** Poll the database until `check` holds or the deadline passes; returns the elapsed time in ms. */
async function until(check: () => boolean | Promise<boolean>, deadlineMs: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > deadlineMs) throw new Error(`not reached within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}

describe("streaming while the agent works", () => {
  it("with no stream delay, the first frames reach the client while the run is still going", async () => {
    const fast = await startAguiServer({ AGENT_STREAM_DELAY_MS: "0" });
    try {
      const input = {
        threadId: `t-${randomUUID()}`,
        runId: `r-${randomUUID()}`,
        protocolVersion: "1.0",
        messages: [userMessage("/stream 20000")],
        tools: [],
        context: [],
      };
      const response = await fetch(`${fast.url}/api/agui/demo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toMatch(/^data: \{"type":"RUN_STARTED"/);
      expect((await fast.services.runs.getRun(input.runId))?.status).toBe("running");
      let rest = "";
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += decoder.decode(value, { stream: true });
      }
      expect(rest).toMatch(/"type":"RUN_FINISHED"[^\n]*\n\n$/);
      expect((await fast.services.runs.getRun(input.runId))?.status).toBe("finished");
    } finally {
      await fast.close();
    }
  });
});

describe("client disconnect", () => {
  it("stops the agent within a second and records the run as cancelled", async () => {
    const input = {
      threadId: `t-${randomUUID()}`,
      runId: `r-${randomUUID()}`,
      protocolVersion: "1.0",
      messages: [userMessage("/stream 100000")],
      tools: [],
      context: [],
    };
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/agui/demo`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(input),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let raw = "";
    while ((raw.match(/"TEXT_MESSAGE_CONTENT"/g) ?? []).length < 5) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended before the deltas");
      raw += decoder.decode(value, { stream: true });
    }
    expect((await server.services.runs.getRun(input.runId))?.status).toBe("running");

    controller.abort();
    const elapsed = await until(async () => (await server.services.runs.getRun(input.runId))?.status === "cancelled", 3000);
    expect(elapsed).toBeLessThan(1000);

    const run = (await server.services.runs.getRun(input.runId))!;
    expect(run).toMatchObject({ status: "cancelled", outcome: { type: "cancelled" } });
    const recorded = await server.services.runs.events(input.runId);
    expect(recorded.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "cancelled" } });
    // Every item was closed before the end, and the agent stopped long before its 100,000 words.
    expect(recorded.slice(-3).map((e) => e.type)).toEqual([
      EventType.TEXT_MESSAGE_END,
      EventType.MESSAGES_SNAPSHOT,
      EventType.RUN_FINISHED,
    ]);
    const deltas = recorded.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).length;
    expect(deltas).toBeLessThan(1000);
    expect(parseFrames(raw.slice(0, raw.lastIndexOf("\n\n") + 2))[0]).toMatchObject({ type: EventType.RUN_STARTED, runId: input.runId });
    // Nothing is recorded after the end: the agent is not running any more.
    const count = recorded.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await server.services.runs.events(input.runId)).toHaveLength(count);
  });
});
