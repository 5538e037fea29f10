import { EventType } from "@ag-ui/core";
import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentInfo } from "@/lib/agents";
import { consoleApi } from "@/lib/api";
import type { AgentProfileView, SettingsView } from "@/lib/api/contracts";
import { openAIChatWire } from "@/lib/demo/model-server/openai-chat";
import { ScriptedModelServer } from "@/lib/demo/model-server/server";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import { createLogger } from "@/lib/log";
import { createServices, type SqliteServices } from "@/lib/services";
import { loadConfig } from "@/lib/config";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { eventsOf, expectValidRun, lastText, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";
import { tempDir } from "../support/services";

// LLM agents added in Settings next to the assistant: each is served at /api/agui/<name> with its
// own model, instructions and tools (the provider keys are the console's), applies an edit to its
// next run, goes away when removed and comes back after a restart. Everything over real HTTP: the
// settings API and the AG-UI endpoint on 127.0.0.1, the real @ag-ui/client, the official OpenAI SDK
// (the Chat driver) against the scripted model server, on a real SQLite file.

const KEY = "sk-profile-test-key-77e1";
const dir = tempDir();
const DB = `${dir}/console.db`;
const logged: string[] = [];

let model: ScriptedModelServer;
let console_: Console;

/** One console process: its services, the AG-UI endpoint and the settings API over real sockets. */
interface Console {
  services: SqliteServices;
  agui: AguiTestServer;
  settingsUrl: string;
  admin: string;
  viewer: string;
  close(): Promise<void>;
}

async function openConsole(): Promise<Console> {
  const services = createServices(loadConfig({ CONSOLE_DB: DB, CONSOLE_STATE_DIR: dir, LOG_LEVEL: "info", AGENT_STREAM_DELAY_MS: "0" }), {
    logger: createLogger("info", (line) => logged.push(line)),
  });
  const agui = await startAguiServer({}, services);
  const { settings, threads } = consoleApi(services);
  const server: http.Server = createNodeServer([
    { method: "GET", path: "/api/settings", handler: settings.get as WebHandler },
    { method: "PUT", path: "/api/settings", handler: settings.update as WebHandler },
    { method: "POST", path: "/api/settings/agents", handler: settings.createAgent as WebHandler },
    { method: "PUT", path: "/api/settings/agents/[name]", handler: settings.updateAgent as WebHandler },
    { method: "DELETE", path: "/api/settings/agents/[name]", handler: settings.removeAgent as WebHandler },
    { method: "GET", path: "/api/threads/[id]", handler: threads.getThread as WebHandler },
  ]);
  const settingsUrl = await listenLocal(server);
  return {
    services,
    agui,
    settingsUrl,
    admin: (await services.tokens.create(`admin-${Date.now()}`, ["tools", "admin", "agui"])).token,
    viewer: (await services.tokens.create(`viewer-${Date.now()}`, ["tools", "agui"])).token,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agui.close();
      services.close();
    },
  };
}

async function call(method: string, path: string, body?: unknown, token: string = console_.admin): Promise<Response> {
  return fetch(`${console_.settingsUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function view(response: Response, status = 200): Promise<SettingsView> {
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBe(status);
  return JSON.parse(text) as SettingsView;
}

async function agents(): Promise<AgentInfo[]> {
  const response = await fetch(`${console_.agui.url}/api/agui`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { agents: AgentInfo[] }).agents;
}

async function chat(agent: string, text: string, threadId?: string) {
  const client = new RecordingAgent(console_.agui.url, { path: `/api/agui/${agent}`, threadId });
  client.addMessage(userMessage(text));
  const run = await observeRun(client);
  expectValidRun(run);
  return run;
}

/** What the scripted server got in its last request: the model, the system prompt, the tools offered. */
function lastRequest() {
  const request = model.requests.at(-1)!;
  return { authorization: request.headers.authorization, ...openAIChatWire.read(request.body, new URL(request.path, model.url)) };
}

const settingRows = () => console_.services.database.sqlite.prepare("select key, value from settings order by key").all();

beforeAll(async () => {
  model = await ScriptedModelServer.start({ formats: [openAIChatWire] });
  console_ = await openConsole();
  // The provider key and base URL are the console's, shared by the assistant and every added agent.
  await view(await call("PUT", "/api/settings", { providers: { openai: { apiKey: KEY, baseUrl: `${model.url}/v1` } } }));
});
afterAll(async () => {
  await console_.close();
  await model.close();
});

const BILLING = {
  name: "billing",
  description: "Answers billing questions.",
  model: "openai:billing-model",
  systemPrompt: "You handle billing.",
  tools: ["calculate", "calculate"],
};

describe("an agent added in Settings", () => {
  it("is listed at once and answers with its own model, system prompt and only its tools", async () => {
    const answer = await view(await call("POST", "/api/settings/agents", BILLING), 201);
    expect(answer.agents).toEqual<AgentProfileView[]>([
      {
        name: "billing",
        description: "Answers billing questions.",
        model: "openai:billing-model",
        systemPrompt: "You handle billing.",
        maxSteps: null,
        tools: ["calculate"],
        effective: { model: "openai-chat:billing-model", problem: null, systemPrompt: "You handle billing.", maxSteps: 10 },
      },
    ]);
    const listed = (await agents()).find((a) => a.name === "billing");
    expect(listed).toMatchObject({ description: "Answers billing questions.", model: "openai-chat:billing-model" });
    // The assistant keeps its own settings: with a local server and no model named, it says what to set.
    expect((await agents()).find((a) => a.name === "assistant")!.model).toMatch(/^not configured: The assistant has no model/);

    model.script({ text: "Your invoice is paid.", usage: { input: 12, output: 4 } });
    const run = await chat("billing", "Is my invoice paid?");
    expect(lastText(run)).toBe("Your invoice is paid.");
    expect(outcomeOf(run).type).toBe("success");
    expect(lastRequest()).toMatchObject({ authorization: `Bearer ${KEY}`, model: "billing-model", system: "You handle billing." });
    expect(lastRequest().tools.map((t) => t.name)).toEqual(["calculate"]);
  });

  it("does not run a registry tool it did not select, whatever the model asks", async () => {
    const before = (await console_.services.callHistory.recent("create_ticket")).length;
    model.script({ toolCalls: [{ name: "create_ticket", args: { title: "Not offered" } }] }, { text: "I cannot open tickets." });
    const run = await chat("billing", "Open a ticket");
    expect(outcomeOf(run).type).toBe("success");
    expect(JSON.parse(String(eventsOf(run, EventType.TOOL_CALL_RESULT)[0]!.content))).toMatchObject({
      ok: false,
      error: { kind: "tool_not_found" },
    });
    expect((await console_.services.callHistory.recent("create_ticket")).length).toBe(before);
  });

  it("applies an edit to its next run: prompt, model and step limit", async () => {
    const answer = await view(
      await call("PUT", "/api/settings/agents/billing", { systemPrompt: "Answer in French.", model: "openai:billing-v2", maxSteps: 3 }),
    );
    expect(answer.agents[0]).toMatchObject({
      description: "Answers billing questions.",
      tools: ["calculate"],
      effective: { model: "openai-chat:billing-v2", systemPrompt: "Answer in French.", maxSteps: 3 },
    });
    expect((await agents()).find((a) => a.name === "billing")!.model).toBe("openai-chat:billing-v2");

    model.script({ text: "Oui." });
    await chat("billing", "Hello");
    expect(lastRequest()).toMatchObject({ model: "billing-v2", system: "Answer in French." });

    // null clears: the built-in instructions and every tool served over AG-UI.
    const cleared = await view(await call("PUT", "/api/settings/agents/billing", { systemPrompt: null, tools: null }));
    expect(cleared.agents[0]!.tools).toBeNull();
    model.script({ text: "All tools." });
    await chat("billing", "Hello again");
    expect(lastRequest().system).toMatch(/^You are the assistant of an AG-UI console\./);
    expect(lastRequest().tools.map((t) => t.name)).toEqual(console_.services.registry.forTarget("agui").map((t) => t.name));
  });

  it("names what is missing when its model's provider has no key, and its run ends with RUN_ERROR saying so", async () => {
    await view(await call("POST", "/api/settings/agents", { name: "poet", model: "anthropic:claude-sonnet-4-5" }), 201);
    const message =
      "The poet agent's model anthropic:claude-sonnet-4-5 needs an Anthropic key: set ANTHROPIC_API_KEY, or add the key in Settings";
    const shown = (await view(await call("GET", "/api/settings"))).agents.find((a) => a.name === "poet")!;
    expect(shown.effective).toMatchObject({ model: null, problem: message });
    expect((await agents()).find((a) => a.name === "poet")).toMatchObject({
      model: `not configured: ${message}`,
      description: "An LLM agent added in Settings.",
    });
    const run = await chat("poet", "A haiku, please");
    expect(run.error).toMatchObject({ code: "model_not_configured", message });
  });

  it("refuses a name another agent has, and bad input, writing nothing", async () => {
    const before = settingRows();
    const listed = (await agents()).map((a) => a.name);
    const taken = ["assistant", "Assistant", "demo", "plain-chat", "openai-agents-demo", "langgraph-demo", "billing", "BILLING"];
    for (const name of taken) {
      const response = await call("POST", "/api/settings/agents", { ...BILLING, name });
      expect(response.status, name).toBe(409);
      expect(await response.json()).toMatchObject({ error: { code: "agent_name_taken" } });
    }
    const bad: Array<[unknown, RegExp]> = [
      [{ ...BILLING, name: "has space" }, /\/name.*1 to 40 letters, digits, dashes or underscores/],
      [{ ...BILLING, name: "x".repeat(41) }, /1 to 40 letters/],
      [{ ...BILLING, name: "remote:billing" }, /1 to 40 letters/],
      [{ ...BILLING, name: "" }, /1 to 40 letters/],
      [{ ...BILLING, name: "fresh", model: "gpt-5" }, /\/model.*must be provider:model/],
      [{ name: "fresh" }, /\/model/],
      [{ ...BILLING, name: "fresh", maxSteps: 0 }, /step limit must be at least 1/],
      [{ ...BILLING, name: "fresh", tools: ["calculate", "no_such_tool"] }, /tools\/1.*No tool named .+no_such_tool/],
      [{ ...BILLING, name: "fresh", apiKey: "sk-nope" }, /Unrecognized key/i],
      [{ ...BILLING, name: "fresh", description: "x".repeat(301) }, /at most 300 characters/],
    ];
    for (const [body, message] of bad) {
      const response = await call("POST", "/api/settings/agents", body);
      const text = await response.text();
      expect(response.status, text).toBe(422);
      expect(JSON.parse(text)).toMatchObject({ error: { code: "invalid_body" } });
      expect(text).toMatch(message);
    }
    const badEdits: Array<[unknown, number]> = [
      [{ name: "renamed" }, 422],
      [{ model: "nope" }, 422],
      [{ tools: ["no_such_tool"] }, 422],
      [{ model: null }, 422],
    ];
    for (const [body, status] of badEdits) expect((await call("PUT", "/api/settings/agents/billing", body)).status).toBe(status);
    expect((await call("PUT", "/api/settings/agents/nobody", { maxSteps: 2 })).status).toBe(404);
    expect((await call("PUT", "/api/settings/agents/assistant", { maxSteps: 2 })).status).toBe(404);
    expect((await call("DELETE", "/api/settings/agents/demo")).status).toBe(404);
    expect((await call("DELETE", "/api/settings/agents/%2E%2E")).status).toBe(404);
    expect(settingRows()).toEqual(before);
    expect((await agents()).map((a) => a.name)).toEqual(listed);
  });

  it("takes the admin scope to change, the tools scope to read, and never holds a key", async () => {
    const before = settingRows();
    for (const [method, path, body] of [
      ["POST", "/api/settings/agents", { ...BILLING, name: "sneaky" }],
      ["PUT", "/api/settings/agents/billing", { systemPrompt: "Hijacked." }],
      ["DELETE", "/api/settings/agents/billing", undefined],
    ] as const) {
      const response = await call(method, path, body, console_.viewer);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: "forbidden" } });
    }
    expect(settingRows()).toEqual(before);
    const read = await call("GET", "/api/settings", undefined, console_.viewer);
    const text = await read.clone().text();
    expect((await view(read)).agents.map((a) => a.name)).toEqual(["billing", "poet"]);
    expect(text).not.toContain(KEY);
    const stored = console_.services.database.sqlite.prepare("select value from settings where key like 'agents.%'").all();
    expect(JSON.stringify(stored)).not.toContain(KEY);
  });

  it("is removed from the catalog and its endpoint, and its threads stay readable", async () => {
    model.script({ text: "Noted." });
    const run = await chat("billing", "Remember invoice 42", `billing-thread-${Date.now()}`);
    const threadId = run.input.threadId;

    const answer = await view(await call("DELETE", "/api/settings/agents/billing"));
    expect(answer.agents.map((a) => a.name)).toEqual(["poet"]);
    expect((await agents()).map((a) => a.name)).not.toContain("billing");
    const refused = await fetch(`${console_.agui.url}/api/agui/billing`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ threadId: "t", runId: "r", messages: [], tools: [], context: [], state: {}, forwardedProps: {} }),
    });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: { code: "agent_not_found" } });
    expect((await call("DELETE", "/api/settings/agents/billing")).status).toBe(404);

    const thread = await call("GET", `/api/threads/${threadId}`);
    expect(thread.status).toBe(200);
    expect(JSON.stringify(await thread.json())).toContain("Remember invoice 42");
    expect(logged.some((line) => line.includes("agent removed in settings") && line.includes("billing"))).toBe(true);
  });

  it("comes back after a restart, on the same database file; a stored value that is not a profile is not served", async () => {
    await view(
      await call("POST", "/api/settings/agents", { name: "support_2", model: "openai:support-model", systemPrompt: "Be kind." }),
      201,
    );
    // Written by hand (or by an older console): not a valid profile.
    await console_.services.settings.write(new Map([["agents.broken", { name: "broken", model: "no-provider" }]]), "test");
    await console_.close();

    console_ = await openConsole();
    const names = (await agents()).map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(["assistant", "poet", "support_2"]));
    expect(names).not.toContain("billing");
    expect(names).not.toContain("broken");
    expect(logged.some((line) => line.includes("not valid are not served") && line.includes("agents.broken"))).toBe(true);

    model.script({ text: "Happy to help." });
    const run = await chat("support_2", "Hi");
    expect(lastText(run)).toBe("Happy to help.");
    expect(lastRequest()).toMatchObject({ authorization: `Bearer ${KEY}`, model: "support-model", system: "Be kind." });

    // Settings can still remove what it does not serve.
    expect((await call("DELETE", "/api/settings/agents/broken")).status).toBe(200);
    expect(console_.services.settings.get("agents.broken")).toBeUndefined();
  });
});
