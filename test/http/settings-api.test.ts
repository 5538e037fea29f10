import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleApi, type ConsoleApi } from "@/lib/api";
import { MAX_AGENT_PROFILES, type SettingsView } from "@/lib/api/contracts";
import { createLogger } from "@/lib/log";
import { createServices, type SqliteServices } from "@/lib/services";
import { loadConfig } from "@/lib/config";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import { countRows } from "../support/database";
import { tempDir } from "../support/services";

const BASE = "http://127.0.0.1:3000";
const ENV_KEY = "sk-env-never-shown-51c0de";
const NEW_KEY = "sk-settings-never-shown-9a7b3c";

let services: SqliteServices;
let settings: ConsoleApi["settings"];
let admin: string;
let viewer: string;
let agentOnly: string;
const logged: string[] = [];

beforeAll(async () => {
  services = createServices(
    loadConfig({
      CONSOLE_DB: `${tempDir()}/console.db`,
      LOG_LEVEL: "debug",
      OPENAI_API_KEY: ENV_KEY,
      ASSISTANT_SYSTEM_PROMPT: "Be terse.",
    }),
    { logger: createLogger("debug", (line) => logged.push(line)) },
  );
  ({ settings } = consoleApi(services));
  admin = (await services.tokens.create("admin", ["tools", "admin"])).token;
  viewer = (await services.tokens.create("viewer", ["tools"])).token;
  agentOnly = (await services.tokens.create("chat", ["agui"])).token;
});
afterAll(() => services.close());

function get(token?: string): Request {
  return new Request(`${BASE}/api/settings`, { headers: { host: "127.0.0.1:3000", ...(token && { authorization: `Bearer ${token}` }) } });
}

function put(body: unknown, token: string | undefined = admin, raw?: string): Request {
  return new Request(`${BASE}/api/settings`, {
    method: "PUT",
    headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
    body: raw ?? JSON.stringify(body),
  });
}

async function view(response: Response): Promise<SettingsView> {
  expect(response.status).toBe(200);
  return (await response.json()) as SettingsView;
}

const settingRows = () => countRows(services.database, "settings");

describe("/api/settings", () => {
  it("GET shows where each value comes from, whether each key is set, and never a key", async () => {
    const response = await settings.get(get(viewer));
    const text = await response.clone().text();
    const answer = await view(response);
    expect(text).not.toContain(ENV_KEY);
    expect(text).not.toContain(ENV_KEY.slice(0, 12));
    expect(answer.canEdit).toBe(false);
    expect(answer.assistant.effective).toMatchObject({
      model: "openai-responses:gpt-5-mini",
      modelFrom: "default",
      problem: null,
      systemPrompt: "Be terse.",
      systemPromptFrom: "environment",
      maxSteps: 10,
    });
    expect(answer.providers.map((p) => [p.name, p.key])).toEqual([
      ["openai", { set: true, from: "environment", inSettings: false, inEnvironment: true }],
      ["anthropic", { set: false, from: null, inSettings: false, inEnvironment: false }],
      ["gemini", { set: false, from: null, inSettings: false, inEnvironment: false }],
    ]);
    expect(answer.tools.map((t) => t.name)).toContain("issue_refund");
    expect(answer.agents).toEqual([]);
  });

  it("reading takes the tools scope; changing takes admin, and a refused change writes nothing", async () => {
    expect((await settings.get(get(agentOnly))).status).toBe(403);
    const refused = await settings.update(put({ maxSteps: 3 }, viewer));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "forbidden" } });
    expect(settingRows()).toBe(0);
  });

  it("an admin sets the model, prompt, steps, tools and a key; the key is stored, answered as set, never returned or logged", async () => {
    const answer = await view(
      await settings.update(
        put({
          model: "anthropic:claude-sonnet-4-5",
          systemPrompt: "Answer in French.",
          maxSteps: 4,
          tools: ["calculate", "get_weather", "calculate"],
          providers: { anthropic: { apiKey: NEW_KEY, baseUrl: "https://gateway.example/anthropic/" } },
        }),
      ),
    );
    expect(answer.canEdit).toBe(true);
    expect(answer.assistant.stored).toEqual({
      model: "anthropic:claude-sonnet-4-5",
      systemPrompt: "Answer in French.",
      maxSteps: 4,
      tools: ["calculate", "get_weather"],
    });
    expect(answer.assistant.effective).toMatchObject({
      model: "anthropic:claude-sonnet-4-5",
      modelFrom: "settings",
      maxStepsFrom: "settings",
    });
    const anthropic = answer.providers.find((p) => p.name === "anthropic")!;
    expect(anthropic.key).toEqual({ set: true, from: "settings", inSettings: true, inEnvironment: false });
    expect(anthropic.baseUrl).toMatchObject({ value: "https://gateway.example/anthropic", from: "settings" });

    const reread = await (await settings.get(get(admin))).text();
    for (const text of [JSON.stringify(answer), reread, logged.join("\n")]) {
      expect(text).not.toContain(NEW_KEY);
      expect(text).not.toContain(NEW_KEY.slice(0, 14));
    }
    expect(logged.some((line) => line.includes("settings changed") && line.includes("provider.anthropic.api_key"))).toBe(true);
    // The agent list says the model the next run uses, without a restart.
    expect(services.agents.get("assistant")!.info.model).toBe("anthropic:claude-sonnet-4-5");
  });

  it("null clears a setting: the environment applies again", async () => {
    const answer = await view(await settings.update(put({ model: null, systemPrompt: null, providers: { anthropic: { apiKey: null } } })));
    expect(answer.assistant.effective).toMatchObject({ model: "openai-responses:gpt-5-mini", systemPrompt: "Be terse.", maxSteps: 4 });
    expect(answer.providers.find((p) => p.name === "anthropic")!.key.set).toBe(false);
    expect(answer.assistant.stored.tools).toEqual(["calculate", "get_weather"]);
  });

  it("bad input is refused with what is wrong, and nothing is written", async () => {
    const before = services.database.sqlite.prepare("select key, value from settings order by key").all();
    const cases: Array<[unknown, number, RegExp]> = [
      [{ model: "gpt-5-mini" }, 422, /must be provider:model/],
      [{ model: "openai:gpt", maxSteps: 0 }, 422, /step limit must be at least 1/],
      [{ maxSteps: 4.5 }, 422, /whole number/],
      [{ tools: ["calculate", "no_such_tool"] }, 422, /tools\/1.*No tool named .+no_such_tool/],
      [{ providers: { openai: { apiKey: "has a space" } } }, 422, /printable ASCII/],
      [{ providers: { openai: { baseUrl: "file:///etc/passwd" } } }, 422, /http or https URL/],
      [{ providers: { mistral: { apiKey: "k" } } }, 422, /Unrecognized key/i],
      [{ unknownField: 1 }, 422, /Unrecognized key/i],
      [{ systemPrompt: "x".repeat(20_001) }, 422, /at most 20000/],
    ];
    for (const [body, status, message] of cases) {
      const response = await settings.update(put(body));
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(JSON.stringify(await response.json())).toMatch(message);
    }
    expect((await settings.update(put(undefined, admin, "{not json"))).status).toBe(400);
    expect(services.database.sqlite.prepare("select key, value from settings order by key").all()).toEqual(before);
  });

  it("holds at most MAX_AGENT_PROFILES added agents: one more is refused and nothing is written", async () => {
    const add = (name: string) =>
      settings.createAgent(
        new Request(`${BASE}/api/settings/agents`, {
          method: "POST",
          headers: { host: "127.0.0.1:3000", "content-type": "application/json", authorization: `Bearer ${admin}` },
          body: JSON.stringify({ name, model: "openai:gpt-5-mini" }),
        }),
      );
    for (let i = 0; i < MAX_AGENT_PROFILES; i++) expect((await add(`agent-${i}`)).status).toBe(201);
    const before = settingRows();
    const refused = await add("one-too-many");
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({
      error: { code: "invalid_body", message: expect.stringMatching(/at most 50 added agents/) },
    });
    expect(settingRows()).toBe(before);
    expect(services.agents.get("one-too-many")).toBeUndefined();
    for (let i = 0; i < MAX_AGENT_PROFILES; i++) {
      const removed = await settings.removeAgent(
        new Request(`${BASE}/api/settings/agents/agent-${i}`, {
          method: "DELETE",
          headers: { host: "127.0.0.1:3000", authorization: `Bearer ${admin}` },
        }),
        { params: Promise.resolve({ name: `agent-${i}` }) },
      );
      expect(removed.status).toBe(200);
    }
    expect(services.agents.list().filter((a) => a.name.startsWith("agent-"))).toEqual([]);
  });

  it("is served over a real socket as the route file mounts it", async () => {
    const server = createNodeServer([
      { method: "GET", path: "/api/settings", handler: settings.get as WebHandler },
      { method: "PUT", path: "/api/settings", handler: settings.update as WebHandler },
    ]);
    const url = await listenLocal(server);
    try {
      const response = await fetch(`${url}/api/settings`, {
        method: "PUT",
        headers: { "content-type": "application/json", authorization: `Bearer ${admin}` },
        body: JSON.stringify({ maxSteps: 6 }),
      });
      expect((await view(response)).assistant.effective.maxSteps).toBe(6);
      const read = await fetch(`${url}/api/settings`, { headers: { authorization: `Bearer ${viewer}` } });
      expect((await view(read)).assistant.stored.maxSteps).toBe(6);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
