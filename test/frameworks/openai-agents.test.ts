import { buildResumeArray } from "@ag-ui/client";
import { EventType, type TokenUsage } from "@ag-ui/core";
import { Agent as SdkAgent, handoff, tool } from "@openai/agents";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { openAIAgentsAgent, openAIAgentsDemo, openAIAgentsModel, RUN_STATE_KEY } from "@/lib/agents/frameworks/openai-agents";
import { consoleApi } from "@/lib/api";
import { openAIChatWire } from "@/lib/demo/model-server/openai-chat";
import { openAIResponsesWire } from "@/lib/demo/model-server/openai-responses";
import { ScriptedModelServer } from "@/lib/demo/model-server/server";
import type { ToolHandler } from "@/lib/tools/handler";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import {
  eventsOf,
  expectValidRun,
  lastText,
  observeRun,
  outcomeOf,
  parseFrames,
  postRun,
  RecordingAgent,
  userMessage,
} from "../support/agui-client";
import { addScreenshotTool, RED_DOT_NAMED, RED_DOT_PNG } from "../support/media";

let server: AguiTestServer;
let models: ScriptedModelServer;
/** Calls that reached issue_refund's handler: a replay must not add one. */
const refunds: Array<Record<string, unknown>> = [];
/** Runs of the handoff agent's own approval-gated tool. */
const wipes: string[] = [];

const modelOptions = () => ({ model: "gpt-scripted", apiKey: "test-key", baseUrl: `${models.url}/v1`, maxRetries: 0 });

beforeAll(async () => {
  server = await startAguiServer();
  models = await ScriptedModelServer.start({ formats: [openAIResponsesWire] });
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
  const { agents, agentStates } = server.services;
  agents.add(openAIAgentsDemo({ states: agentStates, model: modelOptions() }));

  // A triage agent that hands billing over to a specialist, who has a tool of its own that needs approval.
  const model = openAIAgentsModel(modelOptions());
  agents.add(
    openAIAgentsAgent(
      {
        name: "sdk-triage",
        description: "triage with a handoff",
        model: model.label,
        capabilities: { tools: true, clientTools: false, approvals: true, sharedState: false, reasoning: false },
      },
      (tools) => {
        const wipe = tool({
          name: "wipe_cache",
          description: "Clear the billing cache",
          parameters: z.object({ region: z.string() }),
          needsApproval: true,
          execute: ({ region }) => {
            wipes.push(region);
            return `cache of ${region} cleared`;
          },
        });
        const billing = new SdkAgent({ name: "Billing", instructions: "You handle billing.", tools: [...tools, wipe] });
        return new SdkAgent({ name: "Triage", instructions: "Send billing questions to Billing.", handoffs: [handoff(billing)] });
      },
      { model, states: agentStates },
    ),
  );
});
afterAll(async () => {
  await server.close();
  await models.close();
});
beforeEach(() => expect(models.pending).toBe(0));

const client = (path = "/api/agui/openai-agents-demo") => new RecordingAgent(server.url, { path });

async function ask(agent: RecordingAgent, text: string, params = {}) {
  agent.addMessage(userMessage(text));
  const run = await observeRun(agent, params);
  expectValidRun(run);
  return run;
}

/** The function_call_output items the SDK sent back to the model in its last request. */
function lastToolOutputs(): Array<{ call_id: string; output: unknown }> {
  const input = models.requests.at(-1)!.body.input as Array<{ type?: string; call_id: string; output: unknown }>;
  return input.filter((item) => item.type === "function_call_output");
}

async function decideThroughRest(approvalId: string, decision: Record<string, unknown>) {
  const response = await consoleApi(server.services).approvals.decide(
    new Request(`http://127.0.0.1/api/approvals/${approvalId}/decision`, {
      method: "POST",
      headers: { host: "127.0.0.1", "content-type": "application/json" },
      body: JSON.stringify(decision),
    }),
    { params: Promise.resolve({ id: approvalId }), peer: "127.0.0.1" },
  );
  expect(response.status).toBe(200);
}

describe("an OpenAI Agents SDK agent behind the AG-UI endpoint", () => {
  it("streams a plain answer as text, under the SDK's message id, with usage on RUN_FINISHED", async () => {
    models.script({
      reasoning: "The user greets me.",
      text: "Hello from the Agents SDK.",
      usage: { input: 12, output: 7, reasoning: 3, cachedInput: 4 },
    });
    const agent = client();
    const run = await ask(agent, "hello");
    expect(outcomeOf(run)).toEqual({ type: "success" });
    expect(lastText(run)).toBe("Hello from the Agents SDK.");
    expect(eventsOf(run, EventType.TEXT_MESSAGE_START)[0]!.messageId).toMatch(/^msg_/);
    expect(
      eventsOf(run, EventType.REASONING_MESSAGE_CONTENT)
        .map((e) => e.delta)
        .join(""),
    ).toBe("The user greets me.");
    expect(eventsOf(run, EventType.STEP_STARTED).map((e) => e.stepName)).toEqual(["Console assistant"]);
    expect(run.finished!.usage).toEqual([
      {
        provider: "openai",
        model: "gpt-scripted",
        inputTokens: 12,
        outputTokens: 7,
        totalTokens: 19,
        reasoningTokens: 3,
        cachedInputTokens: 4,
      },
    ] satisfies TokenUsage[]);
    // The SDK sent the conversation and the registry's tools through the console's exporter.
    const body = models.requests.at(-1)!.body as { model: string; tools: Array<{ name: string; strict: boolean }>; instructions: string };
    expect(body.model).toBe("gpt-scripted");
    expect(body.instructions).toMatch(/console's assistant/);
    expect(body.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["get_weather", "issue_refund"]));
  });

  it("streams a tool call and its result through the executor, and the answer follows; usage sums both model calls", async () => {
    models.script(
      { toolCalls: [{ name: "get_weather", args: { city: "Paris", unit: "celsius" } }], usage: { input: 10, output: 5 } },
      { text: "It is mild in Paris.", usage: { input: 30, output: 6 } },
    );
    const run = await ask(client(), "weather in Paris?");
    const [start] = eventsOf(run, EventType.TOOL_CALL_START);
    expect(start).toMatchObject({ toolCallName: "get_weather", toolCallId: expect.stringMatching(/^call_/) });
    const [result] = eventsOf(run, EventType.TOOL_CALL_RESULT);
    expect(result!.toolCallId).toBe(start!.toolCallId);
    expect(JSON.parse(result!.content as string)).toMatchObject({ ok: true, value: { city: "Paris", unit: "celsius" } });
    expect(lastText(run)).toBe("It is mild in Paris.");
    // The model got the console's result under the same call id.
    expect(lastToolOutputs()).toEqual([expect.objectContaining({ call_id: start!.toolCallId, output: result!.content })]);
    expect(run.finished!.usage).toEqual([
      { provider: "openai", model: "gpt-scripted", inputTokens: 40, outputTokens: 11, totalTokens: 51 },
    ]);
  });

  it("the model reads an image a tool answered by name, this turn and the next; the stream keeps the image", async () => {
    const png = RED_DOT_PNG;
    await addScreenshotTool(server.services.registry);
    models.script({ toolCalls: [{ name: "screenshot", args: {} }] }, { text: "Done." }, { text: "Still a dot." });
    const agent = client();
    const run = await ask(agent, "take a screenshot");
    expect(eventsOf(run, EventType.TOOL_CALL_RESULT)[0]!.content).toContain(png);
    const named = RED_DOT_NAMED;
    expect(String(lastToolOutputs()[0]!.output)).toContain(named);
    expect(JSON.stringify(models.requests.at(-1)!.body)).not.toContain(png.slice(0, 40));
    // The next turn rebuilds the conversation from the thread: the image is named there too.
    await ask(agent, "what was on it?");
    expect(String(lastToolOutputs()[0]!.output)).toContain(named);
    expect(JSON.stringify(models.requests.at(-1)!.body)).not.toContain(png.slice(0, 40));
  });

  it("a call that needs approval ends the run with the console's interrupt; approved through REST, the resume runs it once; a replay runs nothing again", async () => {
    models.script({
      text: "Let me refund that.",
      toolCalls: [{ name: "issue_refund", args: { orderId: "1234", amount: 20, currency: "EUR" } }],
    });
    const agent = client();
    const paused = await ask(agent, "refund order 1234");
    const outcome = outcomeOf(paused);
    expect(outcome.type).toBe("interrupt");
    const [interrupt] = outcome.type === "interrupt" ? outcome.interrupts : [];
    const [call] = eventsOf(paused, EventType.TOOL_CALL_START);
    expect(interrupt).toMatchObject({
      reason: "tool_call",
      toolCallId: call!.toolCallId,
      metadata: { toolName: "issue_refund", arguments: { orderId: "1234", amount: 20 } },
    });
    expect(call!.parentMessageId).toBe(eventsOf(paused, EventType.TEXT_MESSAGE_START)[0]!.messageId);
    expect(await server.services.approvals.get(interrupt!.id)).toMatchObject({
      status: "pending",
      surface: "agui",
      callId: call!.toolCallId,
      threadId: agent.threadId,
    });
    expect(await server.services.agentStates.get("openai-agents-demo", agent.threadId, RUN_STATE_KEY)).toMatchObject({ status: "paused" });
    expect(refunds).toHaveLength(0);

    await decideThroughRest(interrupt!.id, { approved: true });
    models.script({ text: "Refund RF-1 is issued." });
    const resume = buildResumeArray(agent.pendingInterrupts, { [interrupt!.id]: { status: "resolved", payload: { approved: true } } });
    const resumed = await observeRun(agent, { resume });
    expectValidRun(resumed);
    expect(outcomeOf(resumed)).toEqual({ type: "success" });
    expect(refunds).toHaveLength(1);
    const results = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
    expect(results.map((r) => r.toolCallId)).toEqual([call!.toolCallId]);
    expect(lastText(resumed)).toBe("Refund RF-1 is issued.");
    expect(lastToolOutputs()).toEqual([expect.objectContaining({ call_id: call!.toolCallId, output: results[0]!.content })]);
    expect(await server.services.agentStates.get("openai-agents-demo", agent.threadId, RUN_STATE_KEY)).toMatchObject({
      status: "resumed",
      runId: resumed.input.runId,
    });

    // The same resume again (the state is taken): answered from the record, the refund does not run twice.
    models.script({ text: "Refund RF-1 is issued." });
    const response = await postRun(
      server.url,
      { ...resumed.input, runId: `r-${crypto.randomUUID()}` },
      { path: "/api/agui/openai-agents-demo" },
    );
    const replay = parseFrames(await response.text());
    expect(replay.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success" } });
    expect(refunds).toHaveLength(1);
    const replayed = replay.filter((e) => e.type === EventType.TOOL_CALL_RESULT);
    expect(replayed.map((e) => (e as { content: string }).content)).toEqual([results[0]!.content]);
    expect((await server.services.approvals.events(interrupt!.id)).filter((e) => e.type === "ran")).toHaveLength(1);
  });

  it("a denial gives the model the rejection, and nothing runs", async () => {
    models.script({ toolCalls: [{ name: "issue_refund", args: { orderId: "99", amount: 5, currency: "EUR" } }] });
    const agent = client();
    const paused = await ask(agent, "refund order 99");
    const outcome = outcomeOf(paused);
    const [interrupt] = outcome.type === "interrupt" ? outcome.interrupts : [];
    models.script({ text: "I could not refund it: it was denied." });
    const resume = buildResumeArray(agent.pendingInterrupts, {
      [interrupt!.id]: { status: "resolved", payload: { approved: false, reason: "no refunds on Sundays" } },
    });
    const resumed = await observeRun(agent, { resume });
    expectValidRun(resumed);
    expect(refunds).toHaveLength(1);
    const [result] = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
    expect(JSON.parse(result!.content as string)).toMatchObject({ ok: false, error: { kind: "denied", reason: "no refunds on Sundays" } });
    const [sent] = lastToolOutputs();
    expect(sent!.call_id).toBe(interrupt!.toolCallId);
    expect(JSON.stringify(sent!.output)).toContain("no refunds on Sundays");
    expect(lastText(resumed)).toBe("I could not refund it: it was denied.");
  });

  it("a handoff appears as steps, and the specialist's own approval-gated tool pauses with an {approved} interrupt", async () => {
    models.script(
      { toolCalls: [{ name: "transfer_to_Billing", args: {} }] },
      { text: "Clearing the cache.", toolCalls: [{ name: "wipe_cache", args: { region: "eu" } }] },
    );
    const agent = client("/api/agui/sdk-triage");
    const paused = await ask(agent, "my invoice is wrong");
    expect(eventsOf(paused, EventType.STEP_STARTED).map((e) => e.stepName)).toEqual(["Triage", "Billing"]);
    expect(eventsOf(paused, EventType.STEP_FINISHED).map((e) => e.stepName)).toEqual(["Triage", "Billing"]);
    expect(eventsOf(paused, EventType.TOOL_CALL_START).map((e) => e.toolCallName)).toEqual(["transfer_to_Billing", "wipe_cache"]);
    const outcome = outcomeOf(paused);
    const [interrupt] = outcome.type === "interrupt" ? outcome.interrupts : [];
    expect(interrupt).toMatchObject({
      reason: "tool_approval",
      metadata: { toolName: "wipe_cache", arguments: { region: "eu" }, agent: "Billing" },
    });
    expect(interrupt!.id).toBe(interrupt!.toolCallId);
    expect(wipes).toEqual([]);

    models.script({ text: "The cache is clear." });
    const resumed = await observeRun(agent, {
      resume: buildResumeArray(agent.pendingInterrupts, { [interrupt!.id]: { status: "resolved", payload: { approved: true } } }),
    });
    expectValidRun(resumed);
    expect(wipes).toEqual(["eu"]);
    expect(eventsOf(resumed, EventType.STEP_STARTED).map((e) => e.stepName)).toEqual(["Billing"]);
    expect(eventsOf(resumed, EventType.TOOL_CALL_RESULT)[0]).toMatchObject({ toolCallId: interrupt!.id, content: "cache of eu cleared" });
    expect(lastText(resumed)).toBe("The cache is clear.");
  });

  it("a provider error ends the run with RUN_ERROR naming the provider and its answer", async () => {
    models.script({ error: { status: 401, message: "Incorrect API key provided" } });
    const agent = client();
    agent.addMessage(userMessage("hello"));
    const run = await observeRun(agent);
    expectValidRun(run);
    expect(run.error).toMatchObject({
      code: "model_error",
      message: expect.stringMatching(/^OpenAI refused the key \(401: .*Incorrect API key provided.*\)\. Check OPENAI_API_KEY\.$/),
    });
    expect(run.raw).not.toContain("test-key");
  });
});

describe("over Chat Completions (an OpenAI-compatible server)", async () => {
  let chat: ScriptedModelServer;
  beforeAll(async () => {
    chat = await ScriptedModelServer.start({ formats: [openAIChatWire] });
    server.services.agents.add(
      openAIAgentsAgent(
        {
          name: "sdk-chat",
          description: "the SDK over Chat Completions",
          model: "chat",
          capabilities: { tools: true, clientTools: false, approvals: true, sharedState: false, reasoning: false },
        },
        (tools) => {
          const restart = tool({
            name: "restart_service",
            description: "Restart a service",
            parameters: z.object({ service: z.string() }),
            needsApproval: true,
            execute: ({ service }) => {
              wipes.push(`restart ${service}`);
              return `${service} restarted`;
            },
          });
          return new SdkAgent({ name: "Ops", instructions: "You run operations.", tools: [...tools, restart] });
        },
        {
          model: openAIAgentsModel({ model: "local-model", apiKey: "none", baseUrl: `${chat.url}/v1`, api: "chat", maxRetries: 0 }),
          states: server.services.agentStates,
        },
      ),
    );
  });
  afterAll(() => chat.close());

  it("a tool call and the answer stream with generated ids where the API gives none", async () => {
    chat.script(
      { toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] },
      { text: "It is 42.", usage: { input: 8, output: 3 } },
    );
    const run = await ask(client("/api/agui/sdk-chat"), "6 times 7?");
    expect(chat.requests.every((r) => r.format === "openai-chat")).toBe(true);
    const [result] = eventsOf(run, EventType.TOOL_CALL_RESULT);
    expect(JSON.parse(result!.content as string)).toMatchObject({ ok: true, value: { result: 42 } });
    expect(lastText(run)).toBe("It is 42.");
    expect(eventsOf(run, EventType.TEXT_MESSAGE_START)[0]!.messageId).not.toBe("FAKE_ID");
    expect(run.finished!.usage).toEqual([expect.objectContaining({ inputTokens: 8, outputTokens: 3 })]);
  });

  it("the agent's own tool, rejected with {approved: false}, does not run and the model hears so", async () => {
    chat.script({ toolCalls: [{ name: "restart_service", args: { service: "db" } }] });
    const agent = client("/api/agui/sdk-chat");
    const paused = await ask(agent, "restart the db");
    const outcome = outcomeOf(paused);
    const [interrupt] = outcome.type === "interrupt" ? outcome.interrupts : [];
    expect(interrupt).toMatchObject({ reason: "tool_approval", metadata: { toolName: "restart_service" } });

    chat.script({ text: "I left the db alone." });
    const before = wipes.length;
    const resumed = await observeRun(agent, {
      resume: buildResumeArray(agent.pendingInterrupts, { [interrupt!.id]: { status: "resolved", payload: { approved: false } } }),
    });
    expectValidRun(resumed);
    expect(wipes.length).toBe(before);
    expect(eventsOf(resumed, EventType.TOOL_CALL_RESULT)).toHaveLength(1);
    expect(lastText(resumed)).toBe("I left the db alone.");
    const messages = chat.requests.at(-1)!.body.messages as Array<{ role: string; tool_call_id?: string }>;
    expect(messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual([interrupt!.id]);

    // A second answer to the same interrupt finds nothing open: ignored, and the tool still does not run.
    chat.script({ text: "Nothing to do." });
    const again = await observeRun(agent, { resume: [{ interruptId: interrupt!.id, status: "resolved", payload: { approved: true } }] });
    expectValidRun(again);
    expect(wipes.length).toBe(before);
    expect(eventsOf(again, EventType.CUSTOM).map((e) => e.value)).toEqual([expect.objectContaining({ interruptId: interrupt!.id })]);
  });
});
