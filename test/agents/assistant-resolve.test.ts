import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAssistantSettings, SETTING_KEYS, type AssistantSettings } from "@/lib/agents/assistant-settings";
import { ModelError } from "@/lib/agents/model";
import {
  AnthropicModel,
  createModel,
  GeminiModel,
  guardedFetch,
  OpenAIChatModel,
  OpenAIResponsesModel,
  parseModelRef,
  PLACEHOLDER_API_KEY,
  planModel,
  type ModelEnvironment,
} from "@/lib/agents/models";
import { ConfigError, loadConfig } from "@/lib/config";
import { SettingsStore } from "@/lib/db/settings";
import { AddressNotAllowed, OutboundGuard } from "@/lib/net";
import { freshDatabase } from "../support/database";

const NONE: AssistantSettings = { keys: {}, baseUrls: {} };
const env = (vars: Record<string, string>): ModelEnvironment => loadConfig(vars);

function notConfigured(run: () => unknown): ModelError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe("model_not_configured");
    return error as ModelError;
  }
  throw new Error("expected a ModelError");
}

describe("planModel: which model the assistant uses", () => {
  it("with nothing set, says every variable that would give it one", () => {
    expect(notConfigured(() => planModel(env({}), NONE)).message).toBe(
      "The assistant has no model: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY (or OPENAI_BASE_URL for a local server), or choose a model in Settings",
    );
  });

  it("with only a key, takes that provider's default model (OpenAI through the Responses API)", () => {
    expect(planModel(env({ OPENAI_API_KEY: "sk-o" }), NONE)).toEqual({
      api: "openai-responses",
      provider: "openai",
      model: "gpt-5-mini",
      modelFrom: "default",
      apiKey: "sk-o",
      keyFrom: "environment",
    });
    expect(planModel(env({ ANTHROPIC_API_KEY: "sk-a" }), NONE)).toMatchObject({ api: "anthropic", model: "claude-sonnet-4-5" });
    expect(planModel(env({ GEMINI_API_KEY: "g" }), NONE)).toMatchObject({ api: "gemini", model: "gemini-2.5-flash" });
    // OpenAI first when several keys are set.
    expect(planModel(env({ GEMINI_API_KEY: "g", OPENAI_API_KEY: "sk-o" }), NONE)).toMatchObject({ provider: "openai" });
  });

  it("an OpenAI-compatible server gets Chat Completions, a placeholder key when none is set, and must be told the model", () => {
    const local = { OPENAI_BASE_URL: "http://127.0.0.1:11434/v1/" };
    expect(notConfigured(() => planModel(env(local), NONE)).message).toMatch(
      /OPENAI_BASE_URL\), so name the model it serves with ASSISTANT_MODEL=openai:NAME/,
    );
    expect(planModel(env({ ...local, ASSISTANT_MODEL: "openai:llama3.1:8b" }), NONE)).toEqual({
      api: "openai-chat",
      provider: "openai",
      model: "llama3.1:8b",
      modelFrom: "environment",
      apiKey: PLACEHOLDER_API_KEY,
      keyFrom: "placeholder",
      baseUrl: "http://127.0.0.1:11434/v1",
      baseUrlFrom: "environment",
    });
    // Another provider's key is used meanwhile, rather than guessing a model name for the server.
    expect(planModel(env({ ...local, ANTHROPIC_API_KEY: "sk-a" }), NONE)).toMatchObject({ api: "anthropic" });
  });

  it("openai-chat and openai-responses pick the API whatever the address", () => {
    expect(planModel(env({ OPENAI_API_KEY: "k", ASSISTANT_MODEL: "openai-chat:gpt-4.1" }), NONE)).toMatchObject({ api: "openai-chat" });
    expect(planModel(env({ OPENAI_BASE_URL: "http://10.0.0.2:8000/v1", ASSISTANT_MODEL: "openai-responses:qwen3" }), NONE)).toMatchObject({
      api: "openai-responses",
      keyFrom: "placeholder",
      baseUrl: "http://10.0.0.2:8000/v1",
    });
  });

  it("a named model with no key for its provider names the variable to set", () => {
    expect(notConfigured(() => planModel(env({ ASSISTANT_MODEL: "anthropic:claude-opus-4-1", OPENAI_API_KEY: "k" }), NONE)).message).toBe(
      "The assistant's model anthropic:claude-opus-4-1 needs an Anthropic key: set ANTHROPIC_API_KEY, or add the key in Settings",
    );
    expect(notConfigured(() => planModel(env({ ASSISTANT_MODEL: "openai:gpt-5" }), NONE)).message).toBe(
      "The assistant's model openai:gpt-5 needs an OpenAI key: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server), or add the key in Settings",
    );
  });

  it("Settings override the environment: model, key and base URL", () => {
    const vars = env({ OPENAI_API_KEY: "env-key", ASSISTANT_MODEL: "openai:gpt-5-mini", GEMINI_API_KEY: "env-g" });
    expect(planModel(vars, { ...NONE, model: "gemini:gemini-2.5-pro" })).toMatchObject({
      api: "gemini",
      model: "gemini-2.5-pro",
      modelFrom: "settings",
      apiKey: "env-g",
      keyFrom: "environment",
    });
    expect(planModel(vars, { ...NONE, keys: { openai: "set-key" }, baseUrls: { openai: "http://192.168.1.5:1234/v1" } })).toMatchObject({
      api: "openai-chat",
      apiKey: "set-key",
      keyFrom: "settings",
      baseUrl: "http://192.168.1.5:1234/v1",
      baseUrlFrom: "settings",
    });
  });

  it("never sends a key from the environment to a base URL set in Settings (an admin cannot read it that way)", () => {
    const vars = env({ OPENAI_API_KEY: "env-key", ANTHROPIC_API_KEY: "env-a", ASSISTANT_MODEL: "openai:gpt-5-mini" });
    const elsewhere = { ...NONE, baseUrls: { openai: "https://collector.example/v1" } };
    expect(planModel(vars, elsewhere)).toMatchObject({ apiKey: PLACEHOLDER_API_KEY, keyFrom: "placeholder", baseUrlFrom: "settings" });
    const anthropic = { ...NONE, model: "anthropic:claude-sonnet-4-5", baseUrls: { anthropic: "https://collector.example" } };
    expect(notConfigured(() => planModel(vars, anthropic)).message).toMatch(/ANTHROPIC_API_KEY is not sent to a base URL set in Settings/);
    // The environment's own base URL still gets the environment's key.
    const local = env({ OPENAI_API_KEY: "env-key", OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", ASSISTANT_MODEL: "openai:llama3" });
    expect(planModel(local, NONE)).toMatchObject({ apiKey: "env-key", keyFrom: "environment" });
  });
});

describe("configuration of the assistant", () => {
  it("reads the variables and their defaults", () => {
    expect(loadConfig({})).toMatchObject({ ASSISTANT_MAX_STEPS: 10 });
    expect(loadConfig({ ASSISTANT_MODEL: " openai:llama3.1:8b ", OPENAI_BASE_URL: "http://localhost:11434/v1/" })).toMatchObject({
      ASSISTANT_MODEL: "openai:llama3.1:8b",
      OPENAI_BASE_URL: "http://localhost:11434/v1",
    });
  });

  it("refuses what it cannot use, naming the variable, and never prints a key", () => {
    const error = (vars: Record<string, string>) => {
      try {
        loadConfig(vars);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).message;
      }
      throw new Error("accepted");
    };
    expect(error({ ASSISTANT_MODEL: "gpt-5-mini" })).toMatch(/^ASSISTANT_MODEL must be provider:model, e.g. openai:gpt-5-mini/);
    expect(error({ ASSISTANT_MODEL: "mistral:large" })).toMatch(/^ASSISTANT_MODEL must be provider:model/);
    expect(error({ ASSISTANT_MODEL: "anthropic:" })).toBe(
      'ASSISTANT_MODEL names no model after "anthropic:" (e.g. anthropic:claude-sonnet-4-5) (got "anthropic:")',
    );
    expect(error({ OPENAI_BASE_URL: "localhost:11434" })).toMatch(/^OPENAI_BASE_URL must be an http or https URL/);
    expect(error({ GEMINI_BASE_URL: "https://user:pw@gw.example/" })).toMatch(/^GEMINI_BASE_URL must not hold a user name or password/);
    expect(error({ ASSISTANT_MAX_STEPS: "0" })).toMatch(/^ASSISTANT_MAX_STEPS must be at least 1/);
    const secret = `sk-${"x".repeat(1200)}`;
    const keyError = error({ OPENAI_API_KEY: secret });
    expect(keyError).toBe("OPENAI_API_KEY must be at most 1000 characters");
  });

  it("parseModelRef splits at the first colon only", () => {
    expect(parseModelRef("openai:qwen2.5:7b-instruct")).toEqual({ provider: "openai", model: "qwen2.5:7b-instruct" });
    expect(() => parseModelRef("openai:has space")).toThrow(/characters no model name uses/);
  });
});

describe("readAssistantSettings", () => {
  it("reads what the store holds and leaves out values that do not pass their schema", async () => {
    const database = freshDatabase();
    try {
      const store = new SettingsStore(database.db);
      await store.write(
        new Map<string, unknown>([
          [SETTING_KEYS.model, "anthropic:claude-sonnet-4-5"],
          [SETTING_KEYS.maxSteps, 500],
          [SETTING_KEYS.tools, ["calculate"]],
          [SETTING_KEYS.apiKey("anthropic"), "sk-ant"],
          [SETTING_KEYS.baseUrl("openai"), "ftp://nope"],
        ]),
        "test",
      );
      expect(readAssistantSettings(store)).toEqual({
        model: "anthropic:claude-sonnet-4-5",
        systemPrompt: undefined,
        maxSteps: undefined,
        tools: ["calculate"],
        keys: { anthropic: "sk-ant" },
        baseUrls: {},
      });
      await store.write(new Map([[SETTING_KEYS.model, null]]), "test");
      expect(readAssistantSettings(store).model).toBeUndefined();
    } finally {
      database.close();
    }
  });
});

describe("createModel and the outbound guard", () => {
  let server: http.Server;
  let url: string;
  const seen: Array<{ method: string; body: string; auth?: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (part: Buffer) => (body += part.toString()));
      req.on("end", () => {
        seen.push({ method: req.method ?? "", body, auth: req.headers["x-test"] as string | undefined });
        res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("a base URL whose host the guard cannot name is a ModelError saying what to use, not a crash", () => {
    const plan = planModel(env({ OPENAI_BASE_URL: "http://llama_cpp:8080/v1", ASSISTANT_MODEL: "openai:llama3" }), NONE);
    expect(notConfigured(() => createModel(plan, new OutboundGuard())).message).toMatch(/IP address or a host name without underscores/);
  });

  it("builds the driver the plan names", () => {
    const guard = new OutboundGuard();
    const base = { provider: "openai" as const, model: "m", modelFrom: "default" as const, apiKey: "k", keyFrom: "environment" as const };
    expect(createModel({ ...base, api: "openai-chat" }, guard)).toBeInstanceOf(OpenAIChatModel);
    expect(createModel({ ...base, api: "openai-responses" }, guard)).toBeInstanceOf(OpenAIResponsesModel);
    expect(createModel({ ...base, provider: "anthropic", api: "anthropic" }, guard)).toBeInstanceOf(AnthropicModel);
    expect(createModel({ ...base, provider: "gemini", api: "gemini" }, guard)).toBeInstanceOf(GeminiModel);
  });

  it("guardedFetch refuses what the guard refuses, and carries a Request's method, headers and body", async () => {
    await expect(guardedFetch(new OutboundGuard())(url)).rejects.toBeInstanceOf(AddressNotAllowed);
    const widened = guardedFetch(new OutboundGuard().widen(["127.0.0.1"]));
    const response = await widened(new Request(url, { method: "POST", headers: { "x-test": "yes" }, body: "hello" }));
    expect(await response.text()).toBe("ok");
    expect(seen.at(-1)).toEqual({ method: "POST", body: "hello", auth: "yes" });
    await widened(url, { method: "PUT", body: "again" });
    expect(seen.at(-1)).toMatchObject({ method: "PUT", body: "again" });
  });
});
