import { buildResumeArray } from "@ag-ui/client";
import { EventType, type RunFinishedEvent, type ToolMessage } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SYSTEM_PROMPT } from "@/lib/agents/assistant";
import { SETTING_KEYS } from "@/lib/agents/assistant-settings";
import { consoleApi } from "@/lib/api";
import { anthropicWire } from "@/lib/demo/model-server/anthropic";
import { geminiWire } from "@/lib/demo/model-server/gemini";
import { openAIChatWire } from "@/lib/demo/model-server/openai-chat";
import { openAIResponsesWire } from "@/lib/demo/model-server/openai-responses";
import type { ReadConversation, WireFormat } from "@/lib/demo/model-server/script";
import { ScriptedModelServer } from "@/lib/demo/model-server/server";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { eventsOf, expectValidRun, lastText, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";
import { addScreenshotTool, RED_DOT_NAMED, RED_DOT_PNG } from "../support/media";

// The assistant agent over every driver, end to end: the real @ag-ui/client posts to the console's
// AG-UI endpoint over HTTP; the assistant resolves its model from the environment and Settings; the
// provider's official SDK talks to the scripted model server on 127.0.0.1 in that provider's wire
// format. Only the replies are scripted.

interface DriverCase {
  name: string;
  wire: WireFormat;
  /** The console's environment pointing this provider at the scripted server. */
  env: (url: string) => Record<string, string>;
  /** The variable a refused key names. */
  keyVariable: string;
}

const DRIVERS: DriverCase[] = [
  {
    // An OpenAI-compatible server: Chat Completions, a placeholder key, the model named by the operator.
    name: "OpenAI Chat Completions",
    wire: openAIChatWire,
    env: (url) => ({ OPENAI_BASE_URL: `${url}/v1`, ASSISTANT_MODEL: "openai:llama3.1:8b" }),
    keyVariable: "OPENAI_API_KEY",
  },
  {
    name: "OpenAI Responses",
    wire: openAIResponsesWire,
    env: (url) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: "sk-test-openai", ASSISTANT_MODEL: "openai-responses:gpt-5-mini" }),
    keyVariable: "OPENAI_API_KEY",
  },
  {
    name: "Anthropic Messages",
    wire: anthropicWire,
    env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-test", ASSISTANT_MODEL: "anthropic:claude-sonnet-4-5" }),
    keyVariable: "ANTHROPIC_API_KEY",
  },
  {
    name: "Gemini",
    wire: geminiWire,
    env: (url) => ({ GEMINI_BASE_URL: url, GEMINI_API_KEY: "gemini-test", ASSISTANT_MODEL: "gemini:gemini-2.5-flash" }),
    keyVariable: "GEMINI_API_KEY",
  },
];

describe.each(DRIVERS)("the assistant over $name", ({ wire, env, keyVariable }) => {
  let model: ScriptedModelServer;
  let server: AguiTestServer;

  beforeAll(async () => {
    model = await ScriptedModelServer.start({ formats: [wire] });
    server = await startAguiServer(env(model.url));
  });
  afterAll(async () => {
    await server.close();
    await model.close();
  });

  const client = () => new RecordingAgent(server.url, { path: "/api/agui/assistant" });
  /** What the driver sent in its `index`th request from the end, read back in the console's terms. */
  const sent = (fromEnd = 1): ReadConversation => {
    const request = model.requests.at(-fromEnd)!;
    return wire.read(request.body, new URL(request.path, model.url));
  };

  it("streams a plain answer, with the system prompt and the registry's tools sent, and usage on RUN_FINISHED and in the record", async () => {
    const before = model.requests.length;
    model.script({ reasoning: "The user greets me.", text: "Hello! How can I help?", usage: { input: 42, output: 7 } });
    const agent = client();
    agent.addMessage(userMessage("Hello"));
    const run = await observeRun(agent);
    expectValidRun(run);
    expect(outcomeOf(run).type).toBe("success");
    expect(lastText(run)).toBe("Hello! How can I help?");
    expect(model.requests.length - before).toBe(1);

    const conversation = sent();
    expect(conversation.system).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(conversation.messages.at(-1)).toMatchObject({ role: "user", content: "Hello" });
    const offered = conversation.tools.map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(["get_weather", "calculate", "issue_refund"]));

    const usage = { inputTokens: 42, outputTokens: 7, totalTokens: 49 };
    expect(run.finished!.usage).toEqual([expect.objectContaining(usage)]);
    await server.services.runs.flush();
    const recorded = await server.services.runs.events(run.input.runId);
    expect(recorded.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, usage: [expect.objectContaining(usage)] });
    // And on the run's row, which the Runs page's Tokens column reads.
    expect(await server.services.runs.getRun(run.input.runId)).toMatchObject({
      status: "finished",
      usage: [expect.objectContaining(usage)],
    });
  });

  it("runs parallel tool calls of one turn through the executor and sends their results back", async () => {
    model.script(
      {
        toolCalls: [
          { name: "get_weather", args: { city: "Paris" } },
          { name: "calculate", args: { expression: "6 * 7" } },
        ],
        usage: { input: 30, output: 12 },
      },
      { text: "It is mild in Paris, and 6 * 7 = 42.", usage: { input: 80, output: 15 } },
    );
    const agent = client();
    agent.addMessage(userMessage("Weather in Paris, and 6 * 7?"));
    const run = await observeRun(agent);
    expectValidRun(run);
    expect(outcomeOf(run).type).toBe("success");
    const starts = eventsOf(run, EventType.TOOL_CALL_START);
    expect(starts.map((e) => e.toolCallName)).toEqual(["get_weather", "calculate"]);
    // Both calls of the turn belong to one assistant message.
    expect(new Set(starts.map((e) => e.parentMessageId)).size).toBe(1);
    const results = eventsOf(run, EventType.TOOL_CALL_RESULT);
    expect(results).toHaveLength(2);
    expect(results.find((r) => r.toolCallId === starts[1]!.toolCallId)!.content).toContain("42");
    expect(lastText(run)).toBe("It is mild in Paris, and 6 * 7 = 42.");

    const toolMessages = sent().messages.filter((m): m is ToolMessage => m.role === "tool");
    expect(toolMessages).toHaveLength(2);
    expect(toolMessages.find((m) => JSON.stringify(m.content).includes("42"))).toBeDefined();
    // Two model calls, summed on RUN_FINISHED.
    expect(run.finished!.usage).toEqual([expect.objectContaining({ inputTokens: 110, outputTokens: 27, totalTokens: 137 })]);
  });

  it("names an image a tool answered instead of sending its bytes to the model; the client's stream keeps the image", async () => {
    const png = RED_DOT_PNG;
    await addScreenshotTool(server.services.registry, ["The screen:"]);
    model.script({ toolCalls: [{ name: "screenshot", args: {} }] }, { text: "I took it." });
    const agent = client();
    agent.addMessage(userMessage("Take a screenshot"));
    const run = await observeRun(agent);
    expect(lastText(run)).toBe("I took it.");
    expect(eventsOf(run, EventType.TOOL_CALL_RESULT)[0]!.content).toContain(png);

    const body = JSON.stringify(model.requests.at(-1)!.body);
    expect(body).not.toContain(png.slice(0, 40));
    expect(body).toContain(RED_DOT_NAMED);
    expect(body).toContain("The screen:");
  });

  it("a call that needs approval ends the run with an interrupt; the operator approves over REST; the resume reaches an answer", async () => {
    model.script({ toolCalls: [{ name: "issue_refund", args: { orderId: "A-1", amount: 20, currency: "EUR" } }] });
    const agent = client();
    agent.addMessage(userMessage("Refund order A-1 for 20 EUR"));
    const paused = await observeRun(agent);
    expectValidRun(paused);
    const outcome = outcomeOf(paused) as Extract<RunFinishedEvent["outcome"], { type: "interrupt" }>;
    expect(outcome.type).toBe("interrupt");
    expect(outcome.interrupts).toHaveLength(1);
    const interrupt = outcome.interrupts[0]!;
    expect(interrupt).toMatchObject({ reason: "tool_call", metadata: { toolName: "issue_refund" } });
    const requestsAtPause = model.requests.length;

    // The operator decides in the inbox: the console's own REST handler.
    const decided = await consoleApi(server.services).approvals.decide(
      new Request(`http://127.0.0.1/api/approvals/${interrupt.id}`, {
        method: "POST",
        headers: { host: "127.0.0.1", "content-type": "application/json" },
        body: JSON.stringify({ approved: true }),
      }),
      { params: Promise.resolve({ id: interrupt.id }) },
    );
    expect(decided.status).toBe(200);

    model.script({ text: "The refund of 20 EUR for order A-1 was issued." });
    const resumed = await observeRun(agent, {
      resume: buildResumeArray(agent.pendingInterrupts, { [interrupt.id]: { status: "resolved", payload: { approved: true } } }),
    });
    expectValidRun(resumed);
    expect(outcomeOf(resumed).type).toBe("success");
    expect(eventsOf(resumed, EventType.TOOL_CALL_RESULT)[0]).toMatchObject({ toolCallId: interrupt.toolCallId });
    expect(lastText(resumed)).toBe("The refund of 20 EUR for order A-1 was issued.");
    // The loop went on with one model call, and the model was sent the refund's result.
    expect(model.requests.length - requestsAtPause).toBe(1);
    const answered = sent().messages.filter((m): m is ToolMessage => m.role === "tool");
    expect(String(answered.at(-1)!.content)).toContain('"status":"issued"');
    expect(await server.services.approvals.get(interrupt.id)).toMatchObject({ status: "consumed" });
  });

  it("a provider error ends the run with RUN_ERROR saying who refused what, and which variable to check", async () => {
    model.script({ error: { status: 401, message: "Invalid API key provided" } });
    const agent = client();
    agent.addMessage(userMessage("Hello"));
    const run = await observeRun(agent).catch((error: unknown) => {
      throw new Error(`the client rejected the run: ${String(error)}`);
    });
    expectValidRun(run);
    expect(run.error).toMatchObject({ code: "model_error" });
    expect(run.error!.message).toContain("401");
    expect(run.error!.message).toContain("Invalid API key provided");
    expect(run.error!.message).toContain(keyVariable);
    await server.services.runs.flush();
    expect(await server.services.runs.getRun(run.input.runId)).toMatchObject({ status: "error" });
  });

  it("the step limit stops a model that keeps calling tools", async () => {
    await server.services.settings.write(new Map([[SETTING_KEYS.maxSteps, 2]]), "test");
    try {
      const before = model.requests.length;
      // Only two replies: a third model call would get the scripted server's 500 and end the run in error.
      model.script(
        { toolCalls: [{ name: "calculate", args: { expression: "1 + 1" } }] },
        { toolCalls: [{ name: "calculate", args: { expression: "2 + 2" } }] },
      );
      const agent = client();
      agent.addMessage(userMessage("Keep calculating"));
      const run = await observeRun(agent);
      expectValidRun(run);
      expect(outcomeOf(run).type).toBe("success");
      expect(model.requests.length - before).toBe(2);
      expect(eventsOf(run, EventType.TOOL_CALL_RESULT)).toHaveLength(2);
      expect(lastText(run)).toBe("I stopped after 2 rounds of tool calls without reaching an answer.");
    } finally {
      await server.services.settings.write(new Map([[SETTING_KEYS.maxSteps, null]]), "test");
    }
  });
});
