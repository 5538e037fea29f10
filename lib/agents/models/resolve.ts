import type { Config } from "../../config";
import type { OutboundGuard } from "../../net";
import type { AssistantSettings, ProviderName } from "../assistant-settings";
import { ModelError, type ChatModel } from "../model";
import { AnthropicModel } from "./anthropic";
import type { DriverOptions } from "./driver";
import { GeminiModel } from "./gemini";
import { parseModelRef, type ModelProvider } from "./model-ref";
import { OpenAIChatModel } from "./openai-chat";
import { OpenAIResponsesModel } from "./openai-responses";

/** The environment variables a model is resolved from. */
export type ModelEnvironment = Pick<
  Config,
  | "OPENAI_API_KEY"
  | "OPENAI_BASE_URL"
  | "ANTHROPIC_API_KEY"
  | "ANTHROPIC_BASE_URL"
  | "GEMINI_API_KEY"
  | "GEMINI_BASE_URL"
  | "ASSISTANT_MODEL"
>;

/** The wire API a driver speaks. */
export type ModelApi = "openai-chat" | "openai-responses" | "anthropic" | "gemini";

/** Where a setting's value came from: Settings override the environment, which overrides defaults. */
export type SettingOrigin = "settings" | "environment" | "default";

/** The model a run will use and everything its driver is built from, with where each part came from. */
export interface ModelPlan {
  api: ModelApi;
  provider: ProviderName;
  model: string;
  modelFrom: SettingOrigin;
  apiKey: string;
  /** "placeholder": an OpenAI-compatible server with no key set gets a stand-in (local servers ignore it). */
  keyFrom: "settings" | "environment" | "placeholder";
  baseUrl?: string;
  baseUrlFrom?: "settings" | "environment";
}

/** Sent as the key to an OPENAI_BASE_URL server when no OpenAI key is set (Ollama, vLLM... ignore it). */
export const PLACEHOLDER_API_KEY = "sk-no-key-required";

/** The model used for a provider when only its key is set. */
export const DEFAULT_MODELS: Record<ProviderName, string> = {
  openai: "gpt-5-mini",
  anthropic: "claude-sonnet-4-5",
  gemini: "gemini-2.5-flash",
};

const KEY_VARIABLES: Record<ProviderName, string> = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY", gemini: "GEMINI_API_KEY" };
const PROVIDER_LABELS: Record<ProviderName, string> = { openai: "OpenAI", anthropic: "Anthropic", gemini: "Gemini" };

const NO_MODEL =
  "The assistant has no model: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY (or OPENAI_BASE_URL for a local server), or choose a model in Settings";

/**
 * Which model the assistant uses, from the Settings and the environment (Settings win): the model
 * named in Settings or ASSISTANT_MODEL, else the default model of the first provider with a key
 * (OpenAI, Anthropic, Gemini). Throws ModelError "model_not_configured" naming what to set; `owner`
 * names whose model it is in that message (an added agent's, e.g. "The support agent's").
 */
export function planModel(env: ModelEnvironment, settings: AssistantSettings, owner = "The assistant's"): ModelPlan {
  const baseUrlOf = (provider: ProviderName) => {
    const fromSettings = settings.baseUrls[provider];
    if (fromSettings) return { baseUrl: fromSettings, baseUrlFrom: "settings" as const };
    const fromEnv = envBaseUrl(env, provider);
    return fromEnv ? { baseUrl: fromEnv, baseUrlFrom: "environment" as const } : undefined;
  };
  const keyOf = (provider: ProviderName) => {
    const fromSettings = settings.keys[provider];
    if (fromSettings) return { apiKey: fromSettings, keyFrom: "settings" as const };
    // A key from the environment goes only where the environment sends it (its base URL, or the
    // provider's own API): a base URL set in Settings never gets it, or an admin could read it
    // by pointing the provider at a server of theirs.
    if (baseUrlOf(provider)?.baseUrlFrom === "settings") return undefined;
    const fromEnv = envKey(env, provider);
    return fromEnv ? { apiKey: fromEnv, keyFrom: "environment" as const } : undefined;
  };

  const named = settings.model ?? env.ASSISTANT_MODEL;
  let chosen: { provider: ModelProvider; model: string; modelFrom: SettingOrigin };
  if (named) {
    // Both were checked where they came in (loadConfig, the settings API and readAssistantSettings).
    chosen = { ...parseModelRef(named), modelFrom: settings.model ? "settings" : "environment" };
  } else {
    // A default model name means nothing to an OpenAI-compatible server: there the model must be named.
    const provider = (["openai", "anthropic", "gemini"] as const).find((p) => keyOf(p) && !(p === "openai" && baseUrlOf(p)));
    if (!provider && baseUrlOf("openai"))
      throw new ModelError(
        `The assistant has no model: an OpenAI-compatible server is set (${baseUrlOf("openai")!.baseUrlFrom === "settings" ? "in Settings" : "OPENAI_BASE_URL"}), so name the model it serves with ASSISTANT_MODEL=openai:NAME or in Settings`,
        "model_not_configured",
      );
    if (!provider) throw new ModelError(NO_MODEL, "model_not_configured");
    chosen = { provider, model: DEFAULT_MODELS[provider], modelFrom: "default" };
  }

  const provider: ProviderName = chosen.provider.startsWith("openai") ? "openai" : (chosen.provider as ProviderName);
  const base = baseUrlOf(provider);
  const api: ModelApi =
    chosen.provider === "openai" ? (base ? "openai-chat" : "openai-responses") : (chosen.provider as Exclude<ModelProvider, "openai">);
  const key =
    keyOf(provider) ?? (provider === "openai" && base ? { apiKey: PLACEHOLDER_API_KEY, keyFrom: "placeholder" as const } : undefined);
  if (!key)
    throw new ModelError(
      `${owner} model ${named ?? `${chosen.provider}:${chosen.model}`} needs ${article(PROVIDER_LABELS[provider])} key: set ${KEY_VARIABLES[provider]}${
        provider === "openai" ? " (or OPENAI_BASE_URL for a local server)" : ""
      }, or add the key in Settings${
        base?.baseUrlFrom === "settings" && envKey(env, provider)
          ? ` (the key in ${KEY_VARIABLES[provider]} is not sent to a base URL set in Settings)`
          : ""
      }`,
      "model_not_configured",
    );
  return { api, provider, model: chosen.model, modelFrom: chosen.modelFrom, ...key, ...base };
}

/** How the UI names a plan's model, e.g. "openai-responses:gpt-5-mini". */
export function planLabel(plan: ModelPlan): string {
  return `${plan.api}:${plan.model}`;
}

/**
 * The driver a plan names, sending every request through `guard` (the console's outbound guard).
 * A base URL the operator configured widens the guard for its host: a local server is on loopback
 * or a private network, which the guard otherwise refuses.
 */
export function createModel(plan: ModelPlan, guard: OutboundGuard): ChatModel {
  const widened = plan.baseUrl ? widenForBaseUrl(guard, plan.baseUrl) : guard;
  const options: DriverOptions = {
    model: plan.model,
    apiKey: plan.apiKey,
    ...(plan.baseUrl && { baseUrl: plan.baseUrl }),
    fetch: guardedFetch(widened),
  };
  switch (plan.api) {
    case "openai-chat":
      return new OpenAIChatModel(options);
    case "openai-responses":
      return new OpenAIResponsesModel(options);
    case "anthropic":
      return new AnthropicModel(options);
    case "gemini":
      return new GeminiModel(options);
  }
}

/**
 * The guard widened for a configured base URL's host. A host the guard cannot allow (a name with
 * an underscore, as Docker Compose services often have) is a configuration the run reports, not a
 * crash: a ModelError that says what to use instead.
 */
function widenForBaseUrl(guard: OutboundGuard, baseUrl: string): OutboundGuard {
  const host = new URL(baseUrl).hostname;
  try {
    return guard.widen([host]);
  } catch (error) {
    throw new ModelError(
      `The base URL ${baseUrl} cannot be reached through the outbound guard (${error instanceof Error ? error.message : String(error)}): use its IP address or a host name without underscores`,
      "model_not_configured",
    );
  }
}

/** planModel then createModel: the model to use now. Throws ModelError "model_not_configured". */
export function resolveModel(env: ModelEnvironment, settings: AssistantSettings, guard: OutboundGuard): ChatModel {
  return createModel(planModel(env, settings), guard);
}

/**
 * A `fetch` that goes through the guard. SDKs call fetch with a URL and an init; one that hands a
 * Request instead gets its method, headers, body and signal carried over.
 */
export function guardedFetch(guard: OutboundGuard): typeof fetch {
  return async (input, init) => {
    if (input instanceof Request) {
      const body = input.body ? await input.arrayBuffer() : undefined;
      return guard.fetch(input.url, { method: input.method, headers: input.headers, body, signal: input.signal, ...init });
    }
    return guard.fetch(input, init);
  };
}

function envKey(env: ModelEnvironment, provider: ProviderName): string | undefined {
  if (provider === "openai") return env.OPENAI_API_KEY;
  return provider === "anthropic" ? env.ANTHROPIC_API_KEY : env.GEMINI_API_KEY;
}

function envBaseUrl(env: ModelEnvironment, provider: ProviderName): string | undefined {
  if (provider === "openai") return env.OPENAI_BASE_URL;
  return provider === "anthropic" ? env.ANTHROPIC_BASE_URL : env.GEMINI_BASE_URL;
}

function article(word: string): string {
  return /^[AEIOU]/.test(word) ? `an ${word}` : `a ${word}`;
}
