import { buildResumeArray } from "@ag-ui/client";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFunction } from "@/lib/agents";
import type { ToolHandler } from "@/lib/tools/handler";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { eventsOf, expectValidRun, lastText, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";

let server: AguiTestServer;
/** Calls that reached issue_refund's handler, with their arguments. */
const refunds: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  server = await startAguiServer();
  const refund: ToolHandler = (args) => {
    refunds.push(args);
    return {
      refundId: `RF-${refunds.length}`,
      orderId: args.orderId,
      amount: args.amount,
      currency: args.currency,
      status: "issued",
      issuedAt: new Date().toISOString(),
    };
  };
  server.services.registry.bindHandler("issue_refund", refund);
  server.services.agents.add(
    agentFunction(
      {
        name: "broken",
        description: "fails after a few words",
        model: "test",
        capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false },
      },
      async (run) => {
        await run.text("Starting to answer");
        throw new Error("SQLITE_CORRUPT: database disk image is malformed at /srv/secret/console.db");
      },
    ),
  );
  server.services.agents.add(
    agentFunction(
      {
        name: "waiting",
        description: "says a word, then waits to be stopped",
        model: "test",
        capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false },
      },
      async (run) => {
        await run.text("Thinking it over");
        await new Promise<void>((resolve) =>
          run.ctx.signal.aborted ? resolve() : run.ctx.signal.addEventListener("abort", () => resolve(), { once: true }),
        );
      },
    ),
  );
});
afterAll(() => server.close());

function agent(path = "/api/agui/demo"): RecordingAgent {
  return new RecordingAgent(server.url, { path });
}

/** Ask for a refund and return the paused agent with its one interrupt. */
async function pausedRefund(text = "refund order 1234 for 20 EUR") {
  const client = agent();
  client.addMessage(userMessage(text));
  const run = await observeRun(client);
  expectValidRun(run);
  const outcome = outcomeOf(run);
  expect(outcome.type).toBe("interrupt");
  expect(client.pendingInterrupts).toHaveLength(1);
  return { client, run, interrupt: client.pendingInterrupts[0]! };
}

describe("AG-UI runs through @ag-ui/client 1.0.0 over real HTTP", () => {
  it("plain chat: text only, success", async () => {
    const client = agent("/api/agui/plain-chat");
    client.addMessage(userMessage("hello there"));
    const run = await observeRun(client);
    expectValidRun(run);
    expect(outcomeOf(run)).toEqual({ type: "success" });
    expect(eventsOf(run, EventType.TOOL_CALL_START)).toEqual([]);
    expect(lastText(run)).toBe("You said: “hello there”. I am the plain chat demo (a scripted model with no tools): I can only talk.");
    expect(client.messages.at(-1)).toMatchObject({ role: "assistant", content: lastText(run) });
  });

  it("several tools in one turn: each call streams and gets its result, then one answer", async () => {
    const client = agent();
    client.addMessage(userMessage("weather in Paris and Tokyo"));
    const run = await observeRun(client);
    expectValidRun(run);
    expect(outcomeOf(run)).toEqual({ type: "success" });
    const starts = eventsOf(run, EventType.TOOL_CALL_START);
    expect(starts.map((s) => s.toolCallName)).toEqual(["get_weather", "get_weather"]);
    const results = eventsOf(run, EventType.TOOL_CALL_RESULT);
    expect(results.map((r) => r.toolCallId).sort()).toEqual(starts.map((s) => s.toolCallId).sort());
    const cities = results.map((r) => (JSON.parse(r.content as string) as { value: { city: string } }).value.city).sort();
    expect(cities).toEqual(["Paris", "Tokyo"]);
    expect(lastText(run)).toMatch(/In Paris it is .*\n- In Tokyo it is /s);
    expect(eventsOf(run, EventType.REASONING_MESSAGE_CONTENT).length).toBeGreaterThan(0);
    expect(eventsOf(run, EventType.STATE_DELTA).length).toBeGreaterThan(0);
    expect(client.state).toMatchObject({
      actions: [
        { tool: "get_weather", outcome: "succeeded" },
        { tool: "get_weather", outcome: "succeeded" },
      ],
    });
  });

  it("approve: the interrupt describes the call; the resume runs it once and answers the original tool call", async () => {
    const { client, run, interrupt } = await pausedRefund();
    const call = eventsOf(run, EventType.TOOL_CALL_START)[0]!;
    expect(eventsOf(run, EventType.TOOL_CALL_RESULT)).toEqual([]);
    expect(interrupt).toMatchObject({
      reason: "tool_call",
      toolCallId: call.toolCallId,
      message: expect.any(String),
      responseSchema: {
        type: "object",
        properties: { approved: { type: "boolean" }, reason: { type: "string" }, editedArgs: { type: "object" } },
        required: ["approved"],
      },
      metadata: { toolName: "issue_refund", arguments: { orderId: "1234", amount: 20, currency: "EUR" } },
    });
    expect(new Date(interrupt.expiresAt!).toISOString()).toBe(interrupt.expiresAt);
    expect(run.events.at(-3)?.type).toBe(EventType.STATE_SNAPSHOT);
    const approval = (await server.services.approvals.get(interrupt.id))!;
    expect(approval).toMatchObject({ status: "pending", callId: call.toolCallId, threadId: client.threadId, principal: "local" });

    const before = refunds.length;
    const resumed = await observeRun(client, {
      resume: buildResumeArray(client.pendingInterrupts, { [interrupt.id]: { status: "resolved", payload: { approved: true } } }),
    });
    expectValidRun(resumed);
    expect(outcomeOf(resumed)).toEqual({ type: "success" });
    expect(refunds.length - before).toBe(1);
    expect(eventsOf(resumed, EventType.TOOL_CALL_START)).toEqual([]);
    const results = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
    expect(results.map((r) => r.toolCallId)).toEqual([call.toolCallId]);
    expect(JSON.parse(results[0]!.content as string)).toMatchObject({ ok: true, value: { orderId: "1234", amount: 20, status: "issued" } });
    expect(lastText(resumed)).toMatch(/^Refund RF-\d+ issued: 20 EUR for order 1234\.$/);
    expect(client.pendingInterrupts).toEqual([]);
    expect(await server.services.approvals.get(interrupt.id)).toMatchObject({ status: "consumed", answeredRunId: resumed.input.runId });
  });

  it("deny with a reason: nothing runs and the answer gives the reason", async () => {
    const { client, interrupt } = await pausedRefund();
    const before = refunds.length;
    const resumed = await observeRun(client, {
      resume: buildResumeArray(client.pendingInterrupts, {
        [interrupt.id]: { status: "resolved", payload: { approved: false, reason: "the customer already got a voucher" } },
      }),
    });
    expectValidRun(resumed);
    expect(outcomeOf(resumed)).toEqual({ type: "success" });
    expect(refunds.length).toBe(before);
    const [result] = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
    expect(result?.toolCallId).toBe(interrupt.toolCallId);
    expect(JSON.parse(result!.content as string)).toMatchObject({ ok: false, error: { kind: "denied" } });
    expect(lastText(resumed)).toBe("I did not run issue_refund: the call was denied (reason: the customer already got a voucher).");
    expect(await server.services.approvals.get(interrupt.id)).toMatchObject({
      status: "denied",
      reason: "the customer already got a voucher",
      decidedBy: "local",
    });
    expect(client.state).toMatchObject({ actions: [{ tool: "issue_refund", outcome: "denied" }] });
  });

  it("edit: the tool runs with the edited arguments, recorded on the approval", async () => {
    const { client, interrupt } = await pausedRefund();
    const before = refunds.length;
    const editedArgs = { orderId: "1234", amount: 5, currency: "USD" };
    const resumed = await observeRun(client, {
      resume: buildResumeArray(client.pendingInterrupts, {
        [interrupt.id]: { status: "resolved", payload: { approved: true, editedArgs } },
      }),
    });
    expectValidRun(resumed);
    expect(refunds.slice(before)).toEqual([editedArgs]);
    const [result] = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
    expect(JSON.parse(result!.content as string)).toMatchObject({ ok: true, value: { orderId: "1234", amount: 5, currency: "USD" } });
    expect(lastText(resumed)).toMatch(/issued: 5 USD for order 1234\.$/);
    const approval = (await server.services.approvals.get(interrupt.id))!;
    expect(approval).toMatchObject({ status: "consumed", editedArgs, args: { orderId: "1234", amount: 20, currency: "EUR" } });
    expect(approval.result).toMatchObject({ ok: true, value: { amount: 5, currency: "USD" } });
  });

  it("edit with arguments the tool's schema refuses: ignored, the interrupt stays open", async () => {
    const { client, interrupt } = await pausedRefund();
    const before = refunds.length;
    const resumed = await observeRun(client, {
      resume: buildResumeArray(client.pendingInterrupts, {
        [interrupt.id]: { status: "resolved", payload: { approved: true, editedArgs: { orderId: "1234", amount: -3 } } },
      }),
    });
    expectValidRun(resumed);
    expect(refunds.length).toBe(before);
    const ignored = eventsOf(resumed, EventType.CUSTOM).filter((e) => e.name === "agui-console.resume_ignored");
    expect(ignored).toEqual([expect.objectContaining({ value: { interruptId: interrupt.id, reason: expect.stringContaining("amount") } })]);
    const outcome = outcomeOf(resumed);
    expect(outcome.type === "interrupt" && outcome.interrupts.map((i) => i.id)).toEqual([interrupt.id]);
    expect((await server.services.approvals.get(interrupt.id))?.status).toBe("pending");
  });

  it("cancel: the call never runs and the agent is told it was cancelled", async () => {
    const { client, interrupt } = await pausedRefund();
    const before = refunds.length;
    const resumed = await observeRun(client, {
      resume: buildResumeArray(client.pendingInterrupts, { [interrupt.id]: { status: "cancelled" } }),
    });
    expectValidRun(resumed);
    expect(outcomeOf(resumed)).toEqual({ type: "success" });
    expect(refunds.length).toBe(before);
    const [result] = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
    expect(result?.toolCallId).toBe(interrupt.toolCallId);
    expect(JSON.parse(result!.content as string)).toMatchObject({ ok: false, error: { kind: "cancelled" } });
    expect(lastText(resumed)).toBe("The issue_refund call was cancelled, so nothing happened.");
    expect(await server.services.approvals.get(interrupt.id)).toMatchObject({ status: "cancelled", ranAt: null });
  });

  it("a client-owned tool: the call streams with no result, success lists it pending; the next run's tool message answers it", async () => {
    const tools = [
      {
        name: "pick_color",
        description: "Ask the person to pick a color",
        parameters: { type: "object", properties: { hint: { type: "string" } } },
      },
    ];
    const client = agent();
    client.addMessage(userMessage('/pick_color {"hint":"warm"}'));
    const run = await observeRun(client, { tools });
    expectValidRun(run);
    const [call] = eventsOf(run, EventType.TOOL_CALL_START);
    expect(call).toMatchObject({ toolCallName: "pick_color" });
    const args = eventsOf(run, EventType.TOOL_CALL_ARGS)
      .filter((e) => e.toolCallId === call!.toolCallId)
      .map((e) => e.delta)
      .join("");
    expect(JSON.parse(args)).toEqual({ hint: "warm" });
    expect(eventsOf(run, EventType.TOOL_CALL_RESULT)).toEqual([]);
    expect(outcomeOf(run)).toEqual({ type: "success", pendingToolCallIds: [call!.toolCallId] });
    expect(client.pendingInterrupts).toEqual([]);

    client.addMessage({ id: "tool-answer-1", role: "tool", toolCallId: call!.toolCallId, content: "coral" });
    const next = await observeRun(client, { tools });
    expectValidRun(next);
    expect(outcomeOf(next)).toEqual({ type: "success" });
    expect(eventsOf(next, EventType.TOOL_CALL_START)).toEqual([]);
    expect(lastText(next)).toBe("pick_color answered: coral");
  });

  it("a run stopped from the console: cancelled outcome after a snapshot that keeps what was said", async () => {
    const client = agent("/api/agui/waiting");
    client.addMessage(userMessage("take your time"));
    const run = await observeRun(
      client,
      {},
      { onTextMessageEndEvent: () => void server.services.bridge.cancel(client.exchanges.at(-1)!.input.runId) },
    );
    expectValidRun(run);
    expect(outcomeOf(run)).toEqual({ type: "cancelled" });
    const [snapshot] = eventsOf(run, EventType.MESSAGES_SNAPSHOT);
    expect(snapshot?.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "take your time"],
      ["assistant", "Thinking it over"],
    ]);
    expect((await server.services.runs.getThread(client.threadId))?.messages).toEqual(snapshot?.messages);
    expect(await server.services.runs.getRun(run.input.runId)).toMatchObject({ status: "cancelled" });
  });

  it("an agent error: RUN_ERROR with a client-safe message, no stack or internals", async () => {
    const client = agent("/api/agui/broken");
    client.addMessage(userMessage("go"));
    const run = await observeRun(client);
    expectValidRun(run);
    expect(run.error).toMatchObject({
      type: EventType.RUN_ERROR,
      code: "agent_error",
      message: "The agent failed while answering. The server log has the details.",
    });
    expect(run.raw).not.toMatch(/SQLITE|secret|console\.db|\bat \//);
    // The text message that was open when the agent threw was closed before the error.
    const types = run.events.map((e) => e.type);
    expect(types.slice(-2)).toEqual([EventType.TEXT_MESSAGE_END, EventType.RUN_ERROR]);
    expect(await server.services.runs.getRun(run.input.runId)).toMatchObject({ status: "error" });
  });
});
