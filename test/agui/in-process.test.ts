import { randomUUID } from "node:crypto";
import { EventType } from "@ag-ui/core";
import { afterAll, describe, expect, it } from "vitest";
import { agentFunction } from "@/lib/agents";
import { consoleApi, createConsoleApi } from "@/lib/api";
import { parseFrames, userMessage } from "../support/agui-client";
import { testServices } from "../support/services";

const services = testServices({ AGENT_STREAM_DELAY_MS: "0" });
const endpoint = consoleApi(services).agui;
afterAll(() => services.close());

function post(agent: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  return endpoint.run(
    new Request(`http://localhost:3000/api/agui${agent ? `/${agent}` : ""}`, {
      method: "POST",
      headers: { host: "localhost:3000", "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
    agent ? { params: Promise.resolve({ agent }) } : undefined,
  );
}

describe("the AG-UI endpoint in-process (web-standard handlers, no server)", () => {
  it("POST /api/agui runs the default agent and streams a whole run", async () => {
    const input = { threadId: `t-${randomUUID()}`, runId: `r-${randomUUID()}`, messages: [userMessage("calculate 6 * 7")] };
    const response = await post(undefined, input);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = parseFrames(await response.text());
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId });
    expect(events.find((e) => e.type === EventType.TOOL_CALL_RESULT)).toMatchObject({ content: expect.stringContaining('"result":42') });
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success" } });
    expect(await services.runs.getRun(input.runId)).toMatchObject({ agent: "demo", status: "finished" });
  });

  it("a run's tool calls are recorded without a look at the record first (their ids are made by the run)", async () => {
    const history = services.callHistory;
    const get = history.get.bind(history);
    let reads = 0;
    history.get = (key) => {
      reads++;
      return get(key);
    };
    try {
      const input = { threadId: `t-${randomUUID()}`, runId: `r-${randomUUID()}`, messages: [userMessage("calculate 6 * 7")] };
      const events = parseFrames(await (await post("demo", input)).text());
      const call = events.find((e) => e.type === EventType.TOOL_CALL_RESULT) as { toolCallId: string } | undefined;
      expect(call).toBeDefined();
      expect(reads).toBe(0);
      const recorded = await history.recent("calculate", { limit: 200 });
      expect(recorded.find((past) => past.callId === call!.toolCallId)?.result).toMatchObject({ ok: true, value: { result: 42 } });
    } finally {
      history.get = get;
    }
  });

  it("refuses before the stream with a JSON error body", async () => {
    const refused = await post("demo", { threadId: "t", runId: "r", messages: [] }, { host: "rebind.attacker.test" });
    expect(refused.status).toBe(421);
    expect(await refused.json()).toEqual({ error: { code: "host_not_served", message: expect.any(String) } });
    const invalid = await post("demo", { runId: "r", messages: "no" });
    expect(invalid.status).toBe(422);
    expect(((await invalid.json()) as { error: { issues: Array<{ path: string }> } }).error.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(["/threadId", "/messages"]),
    );
  });

  it("sends `: keepalive` comments while a run is idle, which the stream's readers skip", async () => {
    services.agents.add(
      agentFunction(
        {
          name: "idle",
          description: "waits to be stopped",
          model: "test",
          capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false },
        },
        async (run) => {
          await new Promise<void>((resolve) =>
            run.ctx.signal.aborted ? resolve() : run.ctx.signal.addEventListener("abort", () => resolve(), { once: true }),
          );
        },
      ),
    );
    const quick = createConsoleApi(services, { agui: { keepAliveMs: 20 } }).agui;
    const input = { threadId: `t-${randomUUID()}`, runId: `r-${randomUUID()}`, protocolVersion: "1.0", messages: [userMessage("wait")] };
    const response = await quick.run(
      new Request("http://localhost/api/agui/idle", {
        method: "POST",
        headers: { host: "localhost", "content-type": "application/json" },
        body: JSON.stringify(input),
      }),
      { params: Promise.resolve({ agent: "idle" }) },
    );
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let raw = "";
    while (!raw.includes(": keepalive\n\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended before a keep-alive");
      raw += decoder.decode(value, { stream: true });
    }
    expect(services.bridge.cancel(input.runId)).toBe(true);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
    }
    expect(raw).toMatch(/^data: \{"type":"RUN_STARTED".*\n\n: keepalive\n\n/s);
    expect(parseFrames(raw).map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.MESSAGES_SNAPSHOT, EventType.RUN_FINISHED]);
  });

  it("GET /api/agui lists the agents", async () => {
    const response = await endpoint.listAgents(new Request("http://localhost:3000/api/agui", { headers: { host: "localhost:3000" } }));
    const body = (await response.json()) as { default: string; agents: Array<{ name: string; model: string }> };
    expect(body.default).toBe("demo");
    expect(body.agents.slice(0, 2)).toMatchObject([
      { name: "demo", model: "scripted demo model (no LLM)" },
      { name: "plain-chat", model: "scripted demo model (no LLM)" },
    ]);
  });
});
