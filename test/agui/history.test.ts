import { buildResumeArray } from "@ag-ui/client";
import { EventType, type AGUIEvent, type Interrupt, type Message } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import {
  eventsOf,
  expectValidRun,
  lastText,
  observeRun,
  outcomeOf,
  parseFrames,
  RecordingAgent,
  userMessage,
} from "../support/agui-client";
import { rawRequest } from "../support/raw-http";

let server: AguiTestServer;
beforeAll(async () => {
  server = await startAguiServer();
});
afterAll(() => server?.close());

describe("history over real HTTP", () => {
  it("GET /api/threads/[id] returns the messages, state and open interrupts after a pause", async () => {
    const client = new RecordingAgent(server.url);
    client.addMessage(userMessage("weather in Lima then refund order 9 for 2 EUR"));
    const run = await observeRun(client);
    expectValidRun(run);
    const response = await fetch(`${server.url}/api/threads/${client.threadId}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      thread: { id: string; principal: string; title: string };
      messages: Message[];
      state: unknown;
      interrupts: Interrupt[];
      lastRun: { id: string; status: string };
    };
    expect(body.thread).toMatchObject({ id: client.threadId, principal: "local", title: "weather in Lima then refund order 9 for 2 EUR" });
    expect(body.messages).toEqual(client.messages);
    expect(body.state).toEqual(client.state);
    expect(body.state).toMatchObject({ actions: [{ tool: "get_weather", outcome: "succeeded" }] });
    expect(body.interrupts).toEqual(client.pendingInterrupts);
    expect(body.interrupts).toHaveLength(1);
    expect(body.lastRun).toEqual({ id: run.input.runId, status: "interrupted", outcome: run.finished!.outcome });
  });

  it("a second client rebuilt from GET /api/threads/[id] (as the README says) resumes the pause", async () => {
    const first = new RecordingAgent(server.url);
    first.addMessage(userMessage("refund order 77 for 5 EUR"));
    expectValidRun(await observeRun(first));
    const body = (await (await fetch(`${server.url}/api/threads/${first.threadId}`)).json()) as {
      messages: Message[];
      interrupts: Interrupt[];
    };

    const second = new RecordingAgent(server.url, { threadId: first.threadId, initialMessages: body.messages });
    second.pendingInterrupts = body.interrupts;
    const [interrupt] = body.interrupts;
    const resumed = await observeRun(second, {
      resume: buildResumeArray(second.pendingInterrupts, { [interrupt!.id]: { status: "resolved", payload: { approved: true } } }),
    });
    expectValidRun(resumed);
    expect(outcomeOf(resumed)).toEqual({ type: "success" });
    expect(eventsOf(resumed, EventType.TOOL_CALL_RESULT).map((e) => e.toolCallId)).toEqual([interrupt!.toolCallId]);
    expect(lastText(resumed)).toMatch(/^Refund RF-[0-9A-F]+ issued: 5 EUR for order 77\.$/);
  });

  it("GET /api/runs/[id]/events returns the recorded stream in order, as JSON and as JSON Lines", async () => {
    const client = new RecordingAgent(server.url);
    client.addMessage(userMessage("weather in Paris and Tokyo"));
    const run = await observeRun(client);
    expectValidRun(run);

    const response = await fetch(`${server.url}/api/runs/${run.input.runId}/events`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { run: { id: string; status: string; principal: string }; events: AGUIEvent[] };
    expect(body.run).toMatchObject({ id: run.input.runId, status: "finished", principal: "local" });
    expect(body.events).toEqual(run.events);
    expect(body.events.map((e) => e.type)).toContain(EventType.TOOL_CALL_RESULT);

    const jsonl = await fetch(`${server.url}/api/runs/${run.input.runId}/events?format=jsonl`);
    expect(jsonl.headers.get("content-type")).toBe("application/x-ndjson");
    const text = await jsonl.text();
    expect(text.endsWith("\n")).toBe(true);
    expect(
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as AGUIEvent),
    ).toEqual(run.events);
    expect(parseFrames(run.raw)).toEqual(run.events);
  });

  it("answers 404 for unknown ids and for another caller's thread, 421 for a foreign Host", async () => {
    expect((await fetch(`${server.url}/api/threads/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/runs/nope/events`)).status).toBe(404);
    const client = new RecordingAgent(server.url);
    client.addMessage(userMessage("hi"));
    const run = await observeRun(client);
    const stranger = (await server.services.tokens.create("stranger")).token;
    const headers = { authorization: `Bearer ${stranger}` };
    expect((await fetch(`${server.url}/api/threads/${client.threadId}`, { headers })).status).toBe(404);
    expect((await fetch(`${server.url}/api/runs/${run.input.runId}/events`, { headers })).status).toBe(404);
    expect(
      (await rawRequest(`${server.url}/api/threads/${client.threadId}`, { method: "GET", headers: { host: "evil.example" } })).status,
    ).toBe(421);
  });
});
