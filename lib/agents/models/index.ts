export type { DriverOptions } from "./driver";
export { AnthropicModel } from "./anthropic";
export { GeminiModel } from "./gemini";
export { OpenAIChatModel } from "./openai-chat";
export { OpenAIResponsesModel } from "./openai-responses";
export { formatModelRef, MODEL_PROVIDERS, parseModelRef, type ModelProvider, type ModelRef } from "./model-ref";
export {
  createModel,
  DEFAULT_MODELS,
  guardedFetch,
  PLACEHOLDER_API_KEY,
  planLabel,
  planModel,
  resolveModel,
  type ModelApi,
  type ModelEnvironment,
  type ModelPlan,
  type SettingOrigin,
} from "./resolve";
