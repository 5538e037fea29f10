/**
 * The providers a model reference may name. `openai` picks the OpenAI API by where it goes (the
 * Responses API at api.openai.com, Chat Completions at an OPENAI_BASE_URL, since OpenAI-compatible
 * servers speak Chat Completions); `openai-chat` and `openai-responses` pick it explicitly.
 */
export const MODEL_PROVIDERS = ["openai", "openai-chat", "openai-responses", "anthropic", "gemini"] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** A model as the operator names it: `provider:model`, e.g. `openai:gpt-5-mini`. */
export interface ModelRef {
  provider: ModelProvider;
  model: string;
}

/** Longest model name taken (provider names are far shorter; local servers' names are paths at most). */
export const MAX_MODEL_NAME = 200;

const PROVIDER_SET = new Set<string>(MODEL_PROVIDERS);
/** Model names as providers and local servers spell them: `gpt-5-mini`, `llama3.1:8b`, `org/model@rev`. */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;

/**
 * Read `provider:model`. The provider is the part before the first colon, so a model name may hold
 * colons of its own (`openai:llama3.1:8b` for a local Ollama). Throws an Error saying what is wrong,
 * written to follow the name of the variable or field that held the text.
 */
export function parseModelRef(text: string): ModelRef {
  const value = text.trim();
  const colon = value.indexOf(":");
  const provider = colon < 0 ? "" : value.slice(0, colon).toLowerCase();
  const model = colon < 0 ? "" : value.slice(colon + 1);
  if (!PROVIDER_SET.has(provider))
    throw new Error(`must be provider:model, e.g. openai:gpt-5-mini, with a provider among ${MODEL_PROVIDERS.join(", ")}`);
  if (!model) throw new Error(`names no model after "${provider}:" (e.g. ${provider}:${exampleModel(provider as ModelProvider)})`);
  if (model.length > MAX_MODEL_NAME) throw new Error(`has a model name longer than ${MAX_MODEL_NAME} characters`);
  if (!MODEL_NAME.test(model)) throw new Error("has a model name with characters no model name uses (spaces, quotes, control characters)");
  return { provider: provider as ModelProvider, model };
}

/** `provider:model` */
export function formatModelRef(ref: ModelRef): string {
  return `${ref.provider}:${ref.model}`;
}

function exampleModel(provider: ModelProvider): string {
  if (provider === "anthropic") return "claude-sonnet-4-5";
  if (provider === "gemini") return "gemini-2.5-flash";
  return "gpt-5-mini";
}
