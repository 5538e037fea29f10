import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ASK_PERSON, langGraphDemoAgent } from "@/lib/agents/frameworks/langgraph";
import { openAIChatWire } from "@/lib/demo/model-server/openai-chat";
import { ScriptedModelServer } from "@/lib/demo/model-server/server";
import { eventsOf, expectValidRun, lastText, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { addScreenshotTool, RED_DOT_NAMED, RED_DOT_PNG } from "../support/media";

const PATH = "/api/agui/langgraph-demo";
const KEY = "sk-langgraph-test";

let model: ScriptedModelServer;
let server: AguiTestServer;
beforeAll(async () => {
  model = await ScriptedModelServer.start({ formats: [openAIChatWire] });
  server = await startAguiServer();
  server.services.agents.add(
    langGraphDemoAgent({
      states: server.services.agentStates,
      model: { model: "gpt-graph", apiKey: KEY, baseUrl: `${model.url}/v1`, maxRetries: 0 },
    }),
  );
});
afterAll(async () => {
  await server?.close();
  await model?.close();
});
beforeEach(() => {
  model.requests.length = 0;
  expect(model.pending).toBe(0);
});

function chat(text: string): RecordingAgent {
  const client = new RecordingAgent(server.url, { path: PATH });
  client.addMessage(userMessage(text));
  return client;
}

/** The messages of the n-th model request, as the OpenAI SDK sent them. */
function sent(n: number): Array<Record<string, unknown>> {
  return model.requests[n]!.body.messages as Array<Record<string, unknown>>;
}

describe("the LangGraph demo graph (ChatOpenAI against the scripted Chat Completions server)", () => {
  it("streams the model's text as deltas under one message id and reports usage on RUN_FINISHED", async () => {
    model.script({ text: "Hello from the graph.", chunk: 5, usage: { input: 11, output: 4 } });
    const client = chat("Hi");
    const run = await observeRun(client);
    expectValidRun(run);
    expect(outcomeOf(run)).toEqual({ type: "success" });
    const deltas = eventsOf(run, EventType.TEXT_MESSAGE_CONTENT);
    // Five chunks of 5 characters; those that reach the run while the reader is behind are joined.
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    expect(deltas.length).toBeLessThanOrEqual(5);
    expect(new Set(deltas.map((d) => d.messageId)).size).toBe(1);
    expect(lastText(run)).toBe("Hello from the graph.");
    expect(eventsOf(run, EventType.STEP_STARTED).map((e) => e.stepName)).toEqual(["model"]);
    expect(run.finished?.usage).toEqual([
      expect.objectContaining({ provider: "openai", model: "gpt-graph", inputTokens: 11, outputTokens: 4, totalTokens: 15 }),
    ]);
    expect(client.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "Hi"],
      ["assistant", "Hello from the graph."],
    ]);
    expect(client.messages[1]!.id).toBe(deltas[0]!.messageId);

    const request = model.requests[0]!;
    // The deltas' count no longer shows it (those that came together are joined): the graph asked for a stream.
    expect(request.body.stream).toBe(true);
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent(0).map((m) => m.role)).toEqual(["system", "user"]);
    const tools = (request.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(tools).toEqual(expect.arrayContaining(["calculate", "issue_refund", ASK_PERSON]));
  });

  it("streams a registry tool call and its result, runs it through the executor, and answers after it", async () => {
    model.script(
      { toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }], usage: { input: 20, output: 8 } },
      { text: "It is 42.", usage: { input: 30, output: 5 } },
    );
    const client = chat("What is 6 times 7?");
    const run = await observeRun(client);
    expectValidRun(run);
    const [start] = eventsOf(run, EventType.TOOL_CALL_START);
    expect(start).toMatchObject({ toolCallName: "calculate", toolCallId: expect.stringMatching(/^call_/) });
    const args = eventsOf(run, EventType.TOOL_CALL_ARGS)
      .filter((e) => e.toolCallId === start!.toolCallId)
      .map((e) => e.delta)
      .join("");
    expect(JSON.parse(args)).toEqual({ expression: "6 * 7" });
    const [result] = eventsOf(run, EventType.TOOL_CALL_RESULT);
    expect(result!.toolCallId).toBe(start!.toolCallId);
    expect(JSON.parse(String(result!.content))).toMatchObject({ ok: true, value: { result: 42 } });
    expect(lastText(run)).toBe("It is 42.");
    expect(eventsOf(run, EventType.STEP_STARTED).map((e) => e.stepName)).toEqual(["model", "tools", "model"]);
    expect(run.finished?.usage).toEqual([
      expect.objectContaining({ provider: "openai", model: "gpt-graph", inputTokens: 50, outputTokens: 13, totalTokens: 63 }),
    ]);
    // The second model turn saw the call and its result with the model's own call id.
    expect(sent(1).at(-1)).toMatchObject({ role: "tool", tool_call_id: start!.toolCallId });
    expect(client.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(client.messages[2]!.id).toBe(result!.messageId);
  });

  it("the model reads an image a tool answered by name, this turn and the next; the stream and the thread keep the image", async () => {
    const png = RED_DOT_PNG;
    await addScreenshotTool(server.services.registry);
    model.script({ toolCalls: [{ name: "screenshot", args: {} }] }, { text: "Done." });
    const client = chat("take a screenshot");
    const run = await observeRun(client);
    expectValidRun(run);
    expect(eventsOf(run, EventType.TOOL_CALL_RESULT)[0]!.content).toContain(png);
    expect(JSON.stringify(client.messages.find((m) => m.role === "tool"))).toContain(png);
    const named = RED_DOT_NAMED;
    expect(JSON.stringify(sent(1).at(-1))).toContain(named);
    expect(JSON.stringify(model.requests[1]!.body)).not.toContain(png.slice(0, 40));

    // The next turn goes on from the graph's saved state: the image is named there too.
    model.script({ text: "A dot." });
    client.addMessage(userMessage("what was on it?"));
    expectValidRun(await observeRun(client));
    expect(JSON.stringify(model.requests[2]!.body)).toContain(named);
    expect(JSON.stringify(model.requests[2]!.body)).not.toContain(png.slice(0, 40));
  });

  it("ask_person pauses the graph with an AG-UI interrupt; the person's answer reaches the model on resume", async () => {
    model.script({ toolCalls: [{ name: ASK_PERSON, args: { question: "Which order should I refund?" } }] });
    const client = chat("Refund my order");
    const paused = await observeRun(client);
    expectValidRun(paused);
    const outcome = outcomeOf(paused);
    if (outcome.type !== "interrupt") throw new Error(`expected an interrupt, got ${outcome.type}`);
    expect(outcome.interrupts).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        reason: "input_required",
        message: "Which order should I refund?",
        responseSchema: expect.objectContaining({ required: ["answer"] }),
        metadata: expect.objectContaining({ node: "ask" }),
      },
    ]);

    model.script({ text: "Thanks, I will look at order 42." });
    const resumed = await observeRun(client, {
      resume: [{ interruptId: outcome.interrupts[0]!.id, status: "resolved", payload: { answer: "Order 42" } }],
    });
    expectValidRun(resumed);
    expect(outcomeOf(resumed)).toEqual({ type: "success" });
    expect(lastText(resumed)).toBe("Thanks, I will look at order 42.");
    const [answer] = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
    expect(answer!.content).toBe("Order 42");
    expect(sent(1).at(-1)).toMatchObject({ role: "tool", content: "Order 42" });
    // Only the resumed part was streamed: the question's tool call belongs to the first run.
    expect(eventsOf(resumed, EventType.TOOL_CALL_START)).toEqual([]);
  });

  it("a registry call that needs approval pauses with the console's interrupt; the bridge runs it once and the graph goes on", async () => {
    model.script({ toolCalls: [{ name: "issue_refund", args: { orderId: "42", amount: 30, currency: "EUR", reason: null } }] });
    const client = chat("Refund 30 EUR on order 42");
    const paused = await observeRun(client);
    expectValidRun(paused);
    const outcome = outcomeOf(paused);
    if (outcome.type !== "interrupt") throw new Error(`expected an interrupt, got ${outcome.type}`);
    const [call] = eventsOf(paused, EventType.TOOL_CALL_START);
    expect(outcome.interrupts).toEqual([
      expect.objectContaining({
        reason: "tool_call",
        toolCallId: call!.toolCallId,
        metadata: expect.objectContaining({
          toolName: "issue_refund",
          arguments: { orderId: "42", amount: 30, currency: "EUR", reason: null },
        }),
      }),
    ]);
    const approvalId = outcome.interrupts[0]!.id;
    expect((await server.services.approvals.get(approvalId))?.status).toBe("pending");

    model.script({ text: "Refund issued." });
    const resumed = await observeRun(client, { resume: [{ interruptId: approvalId, status: "resolved", payload: { approved: true } }] });
    expectValidRun(resumed);
    expect(outcomeOf(resumed)).toEqual({ type: "success" });
    expect(lastText(resumed)).toBe("Refund issued.");
    // One result for the call: the bridge's, not a second one from the graph's tools node.
    const results = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
    expect(results.map((r) => r.toolCallId)).toEqual([call!.toolCallId]);
    expect(JSON.parse(String(results[0]!.content))).toMatchObject({ ok: true, value: { orderId: "42", status: "issued" } });
    const toolMessages = client.messages.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => m.id)).toEqual([results[0]!.messageId]);
    // The model saw the refund's outcome once, answered from the call record.
    const answers = sent(1).filter((m) => m.role === "tool");
    expect(answers).toHaveLength(1);
    expect(JSON.parse(String(answers[0]!.content))).toMatchObject({
      ok: true,
      value: { refundId: JSON.parse(String(results[0]!.content)).value.refundId },
    });
    expect((await server.services.approvals.get(approvalId))?.status).not.toBe("pending");
  });

  it("a model error ends the run with RUN_ERROR naming the provider's status and message", async () => {
    model.script({ error: { status: 500, message: "the scripted model broke" } });
    const run = await observeRun(chat("Hi"));
    expectValidRun(run);
    expect(run.error).toMatchObject({ code: "model_error", message: expect.stringMatching(/500.*the scripted model broke/) });
    expect(run.raw).not.toContain(KEY);
  });
});
