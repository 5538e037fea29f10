// GET /api/runs/[id]/stream over real HTTP on SQLite: a client that (re)connects to a run gets the
// events recorded so far, then the others as they are recorded, then the end; with Last-Event-ID or
// ?after= only what it missed; a run whose end was never recorded still ends its stream with a
// RUN_ERROR. (Across two instances on PostgreSQL: e2e/instances.spec.ts.)
import type { AGUIEvent } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { observeRun, RecordingAgent, userMessage } from "../support/agui-client";

let server: AguiTestServer;
beforeAll(async () => {
  // Slow deltas, so the stream below joins a run that is still going.
  server = await startAguiServer({ AGENT_STREAM_DELAY_MS: "15" });
});
afterAll(() => server?.close());

async function readStream(url: string, headers: Record<string, string> = {}): Promise<{ status: number; raw: string }> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(20_000) });
  return { status: response.status, raw: await response.text() };
}

/** The events of SSE text whose frames are `id: N` then `data: JSON` (comments skipped). */
function parseFrames(raw: string): AGUIEvent[] {
  return raw
    .split("\n\n")
    .flatMap((frame) => frame.split("\n").filter((line) => line.startsWith("data: ")))
    .map((line) => JSON.parse(line.slice("data: ".length)) as AGUIEvent);
}

function frameIds(raw: string): number[] {
  return [...raw.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
}

async function recorded(runId: string): Promise<AGUIEvent[]> {
  return ((await (await fetch(`${server.url}/api/runs/${runId}/events`)).json()) as { events: AGUIEvent[] }).events;
}

describe("GET /api/runs/[id]/stream", () => {
  it("joins a running run: the events so far, then the live ones, then the end, numbered by position", async () => {
    const client = new RecordingAgent(server.url);
    client.addMessage(userMessage("tell me a long story about the weather in Lima and Oslo and Quito"));
    const runId = `run-${crypto.randomUUID()}`;
    const run = observeRun(client, { runId });
    // Join once the run is recorded and has events, but long before it ends.
    let joinedAfter = 0;
    for (;;) {
      const response = await fetch(`${server.url}/api/runs/${runId}/events`);
      if (response.status === 200) {
        joinedAfter = ((await response.json()) as { events: AGUIEvent[] }).events.length;
        if (joinedAfter > 0) break;
      } else await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const response = await fetch(`${server.url}/api/runs/${runId}/stream`, { signal: AbortSignal.timeout(20_000) });
    // The stream's headers are sent once the route has read the run: it was running then.
    expect((await server.services.runs.getRun(runId))?.status).toBe("running");
    const streamed = { status: response.status, raw: await response.text() };
    await run;
    expect(streamed.status).toBe(200);
    const events = parseFrames(streamed.raw);
    const all = await recorded(runId);
    expect(all.length).toBeGreaterThan(joinedAfter);
    expect(events).toEqual(all);
    expect(frameIds(streamed.raw)).toEqual(all.map((_, i) => i));
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");

    // Reconnecting after position 3 (either way of saying it) gives the rest only.
    for (const again of [
      await readStream(`${server.url}/api/runs/${runId}/stream`, { "last-event-id": "3" }),
      await readStream(`${server.url}/api/runs/${runId}/stream?after=3`),
    ]) {
      expect(parseFrames(again.raw)).toEqual(all.slice(4));
      expect(frameIds(again.raw)[0]).toBe(4);
    }
    // A client that had it all gets an empty, ended stream.
    expect(parseFrames((await readStream(`${server.url}/api/runs/${runId}/stream?after=${all.length - 1}`)).raw)).toEqual([]);
  });

  it("ends a run whose end was not recorded with a RUN_ERROR carrying the run's error", async () => {
    const runs = server.services.runs;
    await runs.start({ runId: "r-cut", threadId: "t-cut", agent: "demo", principal: "local" });
    runs.append("r-cut", 0, [
      { type: "RUN_STARTED", threadId: "t-cut", runId: "r-cut" },
      { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
    ] as AGUIEvent[]);
    await runs.finish("r-cut", { status: "cancelled", error: "the console instance running it stopped" });
    const { raw } = await readStream(`${server.url}/api/runs/r-cut/stream`);
    expect(parseFrames(raw).map((event) => event.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_ERROR"]);
    expect(parseFrames(raw).at(-1)).toMatchObject({ message: "the console instance running it stopped" });
    expect(frameIds(raw)).toEqual([0, 1, 2]);
    const resumed = await readStream(`${server.url}/api/runs/r-cut/stream?after=1`);
    expect(parseFrames(resumed.raw).map((event) => event.type)).toEqual(["RUN_ERROR"]);
  });

  it("answers 404 for a run that does not exist, and 400 for a bad position", async () => {
    const missing = await fetch(`${server.url}/api/runs/no-such-run/stream`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("run_not_found");
    const bad = await fetch(`${server.url}/api/runs/r-cut/stream?after=x`);
    expect(bad.status).toBe(400);
    await bad.body?.cancel();
  });
});
