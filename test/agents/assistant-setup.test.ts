import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentInfo } from "@/lib/agents";
import { consoleApi } from "@/lib/api";
import { openAIChatWire } from "@/lib/demo/model-server/openai-chat";
import { ScriptedModelServer } from "@/lib/demo/model-server/server";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { eventsOf, expectValidRun, lastText, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";

// A console started with no provider key: the assistant says what to set, the demo agents work, and
// a model chosen in Settings applies to the next run without a restart.

let server: AguiTestServer;
let model: ScriptedModelServer;
const SETTINGS_KEY = "sk-from-settings-4d2e";

beforeAll(async () => {
  server = await startAguiServer();
  model = await ScriptedModelServer.start({ formats: [openAIChatWire] });
});
afterAll(async () => {
  await server.close();
  await model.close();
});

async function agents(): Promise<AgentInfo[]> {
  const response = await fetch(`${server.url}/api/agui`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { agents: AgentInfo[] }).agents;
}

async function put(body: unknown): Promise<Response> {
  return consoleApi(server.services).settings.update(
    new Request("http://127.0.0.1/api/settings", {
      method: "PUT",
      headers: { host: "127.0.0.1", "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

describe("the assistant without a key", () => {
  it("is listed after the demo agents, with what to set in place of a model", async () => {
    const listed = await agents();
    expect(listed.map((a) => a.name).slice(0, 3)).toEqual(["demo", "plain-chat", "assistant"]);
    expect(listed.find((a) => a.name === "assistant")!.model).toBe(
      "not configured: The assistant has no model: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY (or OPENAI_BASE_URL for a local server), or choose a model in Settings",
    );
  });

  it("ends its run with RUN_ERROR naming the variables, and the demo agent still answers", async () => {
    const assistant = new RecordingAgent(server.url, { path: "/api/agui/assistant" });
    assistant.addMessage(userMessage("Hello"));
    const failed = await observeRun(assistant);
    expectValidRun(failed);
    expect(failed.error).toMatchObject({ code: "model_not_configured" });
    expect(failed.error!.message).toMatch(/set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY/);

    const demo = new RecordingAgent(server.url);
    demo.addMessage(userMessage("calculate 2 * (3 + 4)"));
    const answered = await observeRun(demo);
    expectValidRun(answered);
    expect(outcomeOf(answered).type).toBe("success");
    expect(eventsOf(answered, EventType.TOOL_CALL_RESULT)[0]!.content).toContain("14");
  });
});

describe("a model chosen in Settings", () => {
  it("applies to the next run: its key, base URL, system prompt and tool selection are what the provider gets", async () => {
    const saved = await put({
      model: "openai:qwen3:4b",
      systemPrompt: "Answer like a pirate.",
      tools: ["calculate"],
      providers: { openai: { apiKey: SETTINGS_KEY, baseUrl: `${model.url}/v1` } },
    });
    expect(saved.status).toBe(200);
    expect((await agents()).find((a) => a.name === "assistant")!.model).toBe("openai-chat:qwen3:4b");

    model.script({ text: "Arr, hello." });
    const agent = new RecordingAgent(server.url, { path: "/api/agui/assistant" });
    agent.addMessage(userMessage("Hello"));
    const run = await observeRun(agent);
    expectValidRun(run);
    expect(lastText(run)).toBe("Arr, hello.");

    const request = model.requests.at(-1)!;
    expect(request.headers.authorization).toBe(`Bearer ${SETTINGS_KEY}`);
    const conversation = openAIChatWire.read(request.body, new URL(request.path, model.url));
    expect(conversation).toMatchObject({ model: "qwen3:4b", system: "Answer like a pirate." });
    expect(conversation.tools.map((t) => t.name)).toEqual(["calculate"]);
  });

  it("does not run a registry tool it did not offer, whatever the model asks", async () => {
    expect((await put({ tools: ["calculate"] })).status).toBe(200);
    const before = (await server.services.callHistory.recent("create_ticket")).length;
    model.script({ toolCalls: [{ name: "create_ticket", args: { title: "Not offered" } }] }, { text: "I could not open it." });
    const agent = new RecordingAgent(server.url, { path: "/api/agui/assistant" });
    agent.addMessage(userMessage("Open a ticket"));
    const run = await observeRun(agent);
    expectValidRun(run);
    expect(outcomeOf(run).type).toBe("success");
    expect(JSON.parse(String(eventsOf(run, EventType.TOOL_CALL_RESULT)[0]!.content))).toMatchObject({
      ok: false,
      error: { kind: "tool_not_found" },
    });
    expect((await server.services.callHistory.recent("create_ticket")).length).toBe(before);
    expect((await put({ tools: null })).status).toBe(200);
  });

  it("a client tool named like a registry tool left out of the selection is the client's: the console does not run it", async () => {
    expect((await put({ tools: ["calculate"] })).status).toBe(200);
    const before = (await server.services.callHistory.recent("create_ticket")).length;
    model.script({ toolCalls: [{ name: "create_ticket", args: { title: "From the browser" } }] });
    const agent = new RecordingAgent(server.url, { path: "/api/agui/assistant" });
    agent.addMessage(userMessage("Open a ticket"));
    const run = await observeRun(agent, {
      tools: [{ name: "create_ticket", description: "The page's own ticket form", parameters: { type: "object", properties: {} } }],
    });
    expectValidRun(run);
    expect(outcomeOf(run)).toMatchObject({ type: "success", pendingToolCallIds: [expect.any(String)] });
    expect(eventsOf(run, EventType.TOOL_CALL_RESULT)).toEqual([]);
    expect((await server.services.callHistory.recent("create_ticket")).length).toBe(before);
    expect((await put({ tools: null })).status).toBe(200);
  });

  it("offers no registry tool when the selection is empty, and every one again when it is cleared", async () => {
    expect((await put({ tools: [] })).status).toBe(200);
    model.script({ text: "No tools." });
    const agent = new RecordingAgent(server.url, { path: "/api/agui/assistant" });
    agent.addMessage(userMessage("Hello"));
    expectValidRun(await observeRun(agent));
    expect(openAIChatWire.read(model.requests.at(-1)!.body, new URL(model.url)).tools).toEqual([]);

    expect((await put({ tools: null })).status).toBe(200);
    model.script({ text: "All tools." });
    agent.addMessage(userMessage("Again"));
    expectValidRun(await observeRun(agent));
    const offered = openAIChatWire.read(model.requests.at(-1)!.body, new URL(model.url)).tools.map((t) => t.name);
    expect(offered).toEqual(server.services.registry.forTarget("agui").map((t) => t.name));
  });
});
