import { HttpAgent as CurrentHttpAgent } from "@ag-ui/client";
import { EventType, type AGUIEvent, type RunAgentInput } from "@ag-ui/core";
import { buildResumeArray, HttpAgent as LegacyHttpAgent } from "agui-client-legacy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFunction } from "@/lib/agents";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { parseFrames, userMessage } from "../support/agui-client";

let server: AguiTestServer;
let refunds = 0;

beforeAll(async () => {
  server = await startAguiServer();
  server.services.registry.bindHandler("issue_refund", (args) => {
    refunds++;
    return {
      refundId: "RF-LEGACY",
      orderId: args.orderId,
      amount: args.amount,
      currency: args.currency,
      status: "issued",
      issuedAt: new Date().toISOString(),
    };
  });
  // Says one thing, then waits until the run is stopped.
  server.services.agents.add(
    agentFunction(
      {
        name: "waiting",
        description: "waits to be cancelled",
        model: "test",
        capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false },
      },
      async (run) => {
        await run.text("Waiting for you.");
        await new Promise<void>((resolve) =>
          run.ctx.signal.aborted ? resolve() : run.ctx.signal.addEventListener("abort", () => resolve(), { once: true }),
        );
      },
    ),
  );
});
afterAll(() => server?.close());

interface Wire {
  inputs: RunAgentInput[];
  bodies: Array<Promise<string>>;
}

/** A fetch for HttpAgent that keeps what went over the wire. */
function recordingFetch(wire: Wire) {
  return async (url: string, init?: RequestInit) => {
    wire.inputs.push(JSON.parse(String(init?.body)) as RunAgentInput);
    const response = await fetch(url, init);
    wire.bodies.push(response.clone().text());
    return response;
  };
}

function legacyAgent(path = "/api/agui/demo") {
  const wire: Wire = { inputs: [], bodies: [] };
  const agent = new LegacyHttpAgent({ url: `${server.url}${path}`, fetch: recordingFetch(wire) });
  return { agent, wire };
}

/** A user message typed for the old client (its Message type predates file sources). */
function legacyUser(content: string) {
  return { id: userMessage(content).id, role: "user" as const, content };
}

async function lastEvents(wire: Wire): Promise<AGUIEvent[]> {
  return parseFrames(await wire.bodies.at(-1)!);
}

describe("@ag-ui/client 0.0.59 (pre-1.0, as CopilotKit 1.74 ships it)", () => {
  it("completes a run with tool calls; the request carries no protocolVersion and the stream none either", async () => {
    const { agent, wire } = legacyAgent();
    agent.addMessage(legacyUser("weather in Paris"));
    const outcomes: unknown[] = [];
    const errors: unknown[] = [];
    await agent.runAgent(
      {},
      {
        onRunFinishedEvent: (p) => void outcomes.push(p.outcome),
        onRunErrorEvent: (p) => void errors.push(p.event),
        onRunFailed: (p) => void errors.push(p.error),
      },
    );
    expect(errors).toEqual([]);
    expect(outcomes).toEqual(["success"]);
    expect(wire.inputs[0]).not.toHaveProperty("protocolVersion");
    const events = await lastEvents(wire);
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: agent.threadId });
    expect(events[0]).not.toHaveProperty("protocolVersion");
    expect(events.filter((e) => e.type === EventType.TOOL_CALL_RESULT)).toHaveLength(1);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: expect.stringMatching(/^In Paris it is /) });
  });

  it("pauses for an approval and resumes with its own buildResumeArray: the tool runs once", async () => {
    const { agent, wire } = legacyAgent();
    agent.addMessage(legacyUser("refund order 55 for 9 EUR"));
    const failures: unknown[] = [];
    await agent.runAgent({}, { onRunFailed: (p) => void failures.push(p.error) });
    expect(failures).toEqual([]);
    expect(agent.pendingInterrupts).toEqual([
      expect.objectContaining({ reason: "tool_call", metadata: expect.objectContaining({ toolName: "issue_refund" }) }),
    ]);
    const [interrupt] = agent.pendingInterrupts;
    const before = refunds;
    await agent.runAgent(
      { resume: buildResumeArray(agent.pendingInterrupts, { [interrupt!.id]: { status: "resolved", payload: { approved: true } } }) },
      { onRunFailed: (p) => void failures.push(p.error) },
    );
    expect(failures).toEqual([]);
    expect(refunds - before).toBe(1);
    expect(agent.pendingInterrupts).toEqual([]);
    const events = await lastEvents(wire);
    expect(events.find((e) => e.type === EventType.TOOL_CALL_RESULT)).toMatchObject({ toolCallId: interrupt!.toolCallId });
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Refund RF-LEGACY issued: 9 EUR for order 55." });
  });

  it("a client-owned tool: success with no pendingToolCallIds, which its strict schema would refuse", async () => {
    const { agent, wire } = legacyAgent();
    agent.addMessage(legacyUser('/pick_color {"hint":"warm"}'));
    const failures: unknown[] = [];
    const outcomes: unknown[] = [];
    const tools = [
      { name: "pick_color", description: "Pick a color", parameters: { type: "object", properties: { hint: { type: "string" } } } },
    ];
    await agent.runAgent(
      { tools },
      { onRunFailed: (p) => void failures.push(p.error), onRunFinishedEvent: (p) => void outcomes.push(p.outcome) },
    );
    expect(failures).toEqual([]);
    expect(outcomes).toEqual(["success"]);
    const raw = await wire.bodies.at(-1)!;
    expect(raw).toContain('"toolCallName":"pick_color"');
    expect(raw).not.toContain("pendingToolCallIds");
    expect((await lastEvents(wire)).at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success" } });
    // The same run for a 1.0 client lists the pending call.
    const current = new CurrentHttpAgent({ url: `${server.url}/api/agui/demo` });
    current.addMessage(userMessage('/pick_color {"hint":"cold"}'));
    let pending: string[] = [];
    await current.runAgent({ tools }, { onRunFinishedEvent: (p) => void (pending = p.outcome === "success" ? p.pendingToolCallIds : []) });
    expect(pending).toHaveLength(1);
  });

  it("a cancelled run: RUN_ERROR for the old client (never success), the cancelled outcome for a 1.0 client", async () => {
    const { agent, wire } = legacyAgent("/api/agui/waiting");
    agent.addMessage(legacyUser("wait"));
    const errors: Array<{ code?: string; message: string }> = [];
    const outcomes: unknown[] = [];
    await agent.runAgent(
      {},
      {
        onTextMessageEndEvent: () => void server.services.bridge.cancel(wire.inputs.at(-1)!.runId),
        onRunErrorEvent: (p) => void errors.push(p.event),
        onRunFinishedEvent: (p) => void outcomes.push(p.outcome),
      },
    );
    expect(outcomes).toEqual([]);
    expect(errors).toEqual([expect.objectContaining({ code: "cancelled", message: "The run was cancelled" })]);
    expect(await wire.bodies.at(-1)).not.toContain('"cancelled"}');
    expect((await server.services.runs.getRun(wire.inputs.at(-1)!.runId))?.status).toBe("cancelled");

    const currentWire: Wire = { inputs: [], bodies: [] };
    const current = new CurrentHttpAgent({ url: `${server.url}/api/agui/waiting`, fetch: recordingFetch(currentWire) });
    current.addMessage(userMessage("wait"));
    const finished: unknown[] = [];
    await current.runAgent(
      {},
      {
        onTextMessageEndEvent: () => void server.services.bridge.cancel(currentWire.inputs.at(-1)!.runId),
        onRunFinishedEvent: (p) => void finished.push(p.outcome),
      },
    );
    expect(finished).toEqual(["cancelled"]);
    expect((await lastEvents(currentWire)).at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "cancelled" } });
  });
});
