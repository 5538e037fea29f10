import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { eventsOf, expectValidRun, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";

let server: AguiTestServer;
beforeAll(async () => {
  server = await startAguiServer();
});
afterAll(() => server?.close());

const CITIES = ["Paris", "Tokyo", "Lima", "Oslo", "Cairo", "Perth", "Quito", "Dakar", "Hanoi", "Riga"];

describe("50 simultaneous runs", () => {
  it("all stream valid runs on their own threads, tool calls and approvals included", { timeout: 60_000 }, async () => {
    const plans = Array.from({ length: 50 }, (_, i) => {
      if (i % 5 === 0) return { path: "/api/agui/plain-chat", text: `hello number ${i}`, expect: "text" as const };
      if (i % 5 === 1) return { path: "/api/agui/demo", text: `refund order ${1000 + i} for ${i} EUR`, expect: "interrupt" as const };
      if (i % 5 === 2) return { path: "/api/agui/demo", text: `calculate ${i} * 3`, expect: "tool" as const };
      return {
        path: "/api/agui/demo",
        text: `weather in ${CITIES[i % CITIES.length]} and ${CITIES[(i + 3) % CITIES.length]}`,
        expect: "tool" as const,
      };
    });
    const runs = await Promise.all(
      plans.map(async (plan) => {
        const client = new RecordingAgent(server.url, { path: plan.path });
        client.addMessage(userMessage(plan.text));
        return { plan, client, run: await observeRun(client) };
      }),
    );
    for (const { plan, client, run } of runs) {
      expectValidRun(run);
      const outcome = outcomeOf(run);
      if (plan.expect === "interrupt") {
        expect(outcome.type).toBe("interrupt");
        expect(client.pendingInterrupts[0]?.metadata).toMatchObject({
          toolName: "issue_refund",
          arguments: { orderId: plan.text.split(" ")[2] },
        });
      } else {
        expect(outcome).toEqual({ type: "success" });
        const results = eventsOf(run, EventType.TOOL_CALL_RESULT);
        expect(results.length).toBe(plan.expect === "tool" ? eventsOf(run, EventType.TOOL_CALL_START).length : 0);
        if (plan.expect === "tool") expect(results.length).toBeGreaterThan(0);
      }
    }
    expect(new Set(runs.map((r) => r.client.threadId)).size).toBe(50);
    const recorded = (await server.services.runs.listRuns({ limit: 100 })).items;
    expect(recorded).toHaveLength(50);
    expect(recorded.filter((r) => r.status === "interrupted")).toHaveLength(10);
    expect(recorded.filter((r) => r.status === "finished")).toHaveLength(40);
    // Each run's record holds exactly the stream its client received.
    for (const { run } of runs.slice(0, 10)) expect(await server.services.runs.events(run.input.runId)).toEqual(run.events);
  });
});
