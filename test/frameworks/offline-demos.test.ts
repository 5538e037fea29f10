import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frameworkDemoModel, OFFLINE_DEMO_MODEL } from "@/lib/agents/frameworks/demo-model";
import { OutboundGuard } from "@/lib/net";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { eventsOf, expectValidRun, lastText, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";

let server: AguiTestServer;

beforeAll(async () => {
  // No provider key, no base URL: the framework demos run on the console's offline scripted server.
  server = await startAguiServer();
});
afterAll(() => server?.close());

describe("the framework demos with no key", () => {
  it.each(["openai-agents-demo", "langgraph-demo"])(
    "%s answers through its SDK, calls a registry tool and says what it returned",
    async (name) => {
      const info = server.services.agents.list().find((a) => a.name === name)!;
      expect(info.model).toContain(OFFLINE_DEMO_MODEL);
      const agent = new RecordingAgent(server.url, { path: `/api/agui/${name}` });
      agent.addMessage(userMessage("calculate 6 * 7"));
      const run = await observeRun(agent);
      expectValidRun(run);
      expect(outcomeOf(run).type).toBe("success");
      expect(eventsOf(run, EventType.TOOL_CALL_START)[0]).toMatchObject({ toolCallName: "calculate" });
      expect(String(eventsOf(run, EventType.TOOL_CALL_RESULT)[0]!.content)).toContain("42");
      expect(lastText(run)).toContain("42");
    },
  );
});

describe("frameworkDemoModel", () => {
  const guard = new OutboundGuard();
  const none = { keys: {}, baseUrls: {} };
  it("runs offline without OpenAI, on OpenAI with a key, and on a compatible server only once a model is named for it", () => {
    expect(frameworkDemoModel({}, none, guard)).toMatchObject({ offline: true, api: "chat" });
    expect(frameworkDemoModel({ OPENAI_API_KEY: "sk-x" }, none, guard)).toMatchObject({
      offline: false,
      api: "responses",
      options: { model: "gpt-5-mini", apiKey: "sk-x" },
    });
    expect(frameworkDemoModel({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }, none, guard).offline).toBe(true);
    expect(
      frameworkDemoModel({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", ASSISTANT_MODEL: "openai:qwen3:4b" }, none, guard),
    ).toMatchObject({ offline: false, api: "chat", options: { model: "qwen3:4b", baseUrl: "http://127.0.0.1:11434/v1" } });
    expect(frameworkDemoModel({ ANTHROPIC_API_KEY: "k", ASSISTANT_MODEL: "anthropic:claude-sonnet-4-5" }, none, guard).offline).toBe(true);
  });

  it("never sends the environment's key to a base URL set in Settings, and stays offline for a host the guard cannot name", () => {
    const settings = { keys: {}, baseUrls: { openai: "https://collector.example/v1" }, model: "openai:gpt-5-mini" };
    expect(frameworkDemoModel({ OPENAI_API_KEY: "env-key" }, settings, guard).options.apiKey).not.toBe("env-key");
    const underscore = { OPENAI_BASE_URL: "http://llama_cpp:8080/v1", ASSISTANT_MODEL: "openai:llama3" };
    expect(frameworkDemoModel(underscore, none, guard).offline).toBe(true);
  });
});
