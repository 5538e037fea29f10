import { OFFLINE_MODEL_BASE_URL, offlineFetch } from "../../demo/model-server";
import type { OutboundGuard } from "../../net";
import type { AssistantSettings } from "../assistant-settings";
import type { DriverOptions } from "../models/driver";
import { parseModelRef } from "../models/model-ref";
import { DEFAULT_MODELS, guardedFetch, PLACEHOLDER_API_KEY, type ModelEnvironment } from "../models/resolve";

/** The OpenAI model a framework demo runs on, and which OpenAI API it speaks. */
export interface DemoModel {
  options: DriverOptions;
  api: "responses" | "chat";
  /** True when it is the console's own scripted server (no key set). */
  offline: boolean;
}

/** The model name the framework demos report when they run on the offline scripted server. */
export const OFFLINE_DEMO_MODEL = "scripted-demo-offline";

/**
 * The model the OpenAI Agents SDK and LangGraph demos use, read once at start: OpenAI when a key
 * is set (the model named in Settings or ASSISTANT_MODEL when it is an OpenAI one, else OpenAI's
 * default), an OpenAI-compatible server when a base URL is set and a model named for it, and
 * otherwise the console's offline scripted server, so both demos work with no key at all.
 */
export function frameworkDemoModel(env: ModelEnvironment, settings: AssistantSettings, outbound: OutboundGuard): DemoModel {
  const baseUrl = settings.baseUrls.openai ?? env.OPENAI_BASE_URL;
  // As for the assistant: the environment's key never goes to a base URL set in Settings.
  const apiKey = settings.keys.openai ?? (settings.baseUrls.openai ? undefined : env.OPENAI_API_KEY);
  const named = settings.model ?? env.ASSISTANT_MODEL;
  const ref = named ? parseModelRef(named) : undefined;
  const openAIModel = ref?.provider.startsWith("openai") ? ref.model : undefined;
  // A compatible server's models have no default name: without one, the demos stay offline.
  const model = openAIModel ?? (baseUrl ? undefined : apiKey && DEFAULT_MODELS.openai);
  const guard = baseUrl ? widenFor(outbound, baseUrl) : outbound;
  if (model && (apiKey || baseUrl) && guard) {
    return {
      options: { model, apiKey: apiKey ?? PLACEHOLDER_API_KEY, ...(baseUrl && { baseUrl }), fetch: guardedFetch(guard) },
      api: ref?.provider === "openai-chat" || (baseUrl && ref?.provider !== "openai-responses") ? "chat" : "responses",
      offline: false,
    };
  }
  return {
    options: { model: OFFLINE_DEMO_MODEL, apiKey: "offline", baseUrl: `${OFFLINE_MODEL_BASE_URL}/v1`, fetch: offlineFetch },
    api: "chat",
    offline: true,
  };
}

/** The guard widened for a base URL's host; undefined for a host the guard cannot name (the demos then stay offline). */
function widenFor(outbound: OutboundGuard, baseUrl: string): OutboundGuard | undefined {
  try {
    return outbound.widen([new URL(baseUrl).hostname]);
  } catch {
    return undefined;
  }
}
