export {
  toOpenAIChatTool,
  toOpenAIChatTools,
  toOpenAIResponsesTool,
  toOpenAIResponsesTools,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  type OpenAIExportOptions,
} from "./openai-tools";
export { toOpenAIStrictSchema, type StrictSchemaResult } from "./strict-schema";
export { dropStrictNulls } from "./strict-arguments";
