import { z } from "zod";
import { MAX_MODEL_NAME, parseModelRef } from "./models/model-ref";

/** The providers whose key and base URL the operator sets (by environment or in Settings). */
export const PROVIDER_NAMES = ["openai", "anthropic", "gemini"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Longest system prompt taken (about five thousand words). */
export const MAX_SYSTEM_PROMPT = 20_000;
/** Most tool-calling model turns a run may take. */
export const MAX_STEPS = 100;
/** Most tools a selection may name. */
export const MAX_SELECTED_TOOLS = 500;

/** `provider:model`, as ASSISTANT_MODEL takes it. */
export const ModelRefText = z
  .string()
  .trim()
  .max(MAX_MODEL_NAME + 32, "is too long")
  .superRefine((value, ctx) => {
    try {
      parseModelRef(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `The model ${(error as Error).message}` });
    }
  });
export const SystemPrompt = z.string().max(MAX_SYSTEM_PROMPT, `The system prompt must be at most ${MAX_SYSTEM_PROMPT} characters`);
export const MaxSteps = z
  .number({ message: "The step limit must be a number" })
  .int("The step limit must be a whole number")
  .min(1, "The step limit must be at least 1")
  .max(MAX_STEPS, `The step limit must be at most ${MAX_STEPS}`);
/** The registry tools the assistant offers, by name; absent means every tool served over AG-UI. */
export const ToolSelection = z
  .array(z.string().min(1, "A tool name must not be empty").max(128, "A tool name is at most 128 characters"))
  .max(MAX_SELECTED_TOOLS, `Select at most ${MAX_SELECTED_TOOLS} tools`);
/** A provider key: one line of printable characters (it goes into a header). */
export const ApiKey = z
  .string()
  .trim()
  .min(1, "The key must not be empty (send null to clear it)")
  .max(1000, "The key must be at most 1000 characters")
  .regex(/^[\x21-\x7e]+$/, "The key must be printable ASCII with no spaces");
/** An API's base URL: http or https, with no user name or password in it. */
export const BaseUrl = z
  .string()
  .trim()
  .max(2000, "The base URL must be at most 2000 characters")
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "The base URL must be an http or https URL")
  .refine(
    (value) => !URL.canParse(value) || (!new URL(value).username && !new URL(value).password),
    "The base URL must not hold credentials",
  )
  .transform((value) => value.replace(/\/+$/, ""));

/** Where the `settings` table keeps each value. */
export const SETTING_KEYS = {
  model: "assistant.model",
  systemPrompt: "assistant.system_prompt",
  maxSteps: "assistant.max_steps",
  tools: "assistant.tools",
  apiKey: (provider: ProviderName) => `provider.${provider}.api_key`,
  baseUrl: (provider: ProviderName) => `provider.${provider}.base_url`,
} as const;

/** Every key the assistant reads. */
export const ASSISTANT_SETTING_KEYS: readonly string[] = [
  SETTING_KEYS.model,
  SETTING_KEYS.systemPrompt,
  SETTING_KEYS.maxSteps,
  SETTING_KEYS.tools,
  ...PROVIDER_NAMES.flatMap((p) => [SETTING_KEYS.apiKey(p), SETTING_KEYS.baseUrl(p)]),
];

/** What an admin set in Settings for the assistant; each part overrides its environment variable. */
export interface AssistantSettings {
  model?: string;
  systemPrompt?: string;
  maxSteps?: number;
  /** Undefined: every registry tool served over AG-UI. */
  tools?: string[];
  keys: Partial<Record<ProviderName, string>>;
  baseUrls: Partial<Record<ProviderName, string>>;
}

/** The part of the settings store the assistant reads (lib/db SettingsStore). */
export interface SettingsReader {
  many(keys: readonly string[]): Array<{ key: string; value: unknown }>;
}

/**
 * The assistant's settings as stored. A stored value that does not pass its schema (written by
 * hand, or by an older console) is left out, so the environment applies instead of a broken value.
 */
export function readAssistantSettings(reader: SettingsReader): AssistantSettings {
  const stored = new Map(reader.many(ASSISTANT_SETTING_KEYS).map((row) => [row.key, row.value]));
  const read = <S extends z.ZodType>(schema: S, key: string): z.output<S> | undefined => {
    const parsed = schema.safeParse(stored.get(key));
    return parsed.success ? parsed.data : undefined;
  };
  const keys: AssistantSettings["keys"] = {};
  const baseUrls: AssistantSettings["baseUrls"] = {};
  for (const provider of PROVIDER_NAMES) {
    const key = read(ApiKey, SETTING_KEYS.apiKey(provider));
    if (key) keys[provider] = key;
    const url = read(BaseUrl, SETTING_KEYS.baseUrl(provider));
    if (url) baseUrls[provider] = url;
  }
  return {
    model: read(ModelRefText, SETTING_KEYS.model),
    systemPrompt: read(SystemPrompt, SETTING_KEYS.systemPrompt),
    maxSteps: read(MaxSteps, SETTING_KEYS.maxSteps),
    tools: read(ToolSelection, SETTING_KEYS.tools),
    keys,
    baseUrls,
  };
}
