export { toAnthropicTool, toAnthropicTools, type AnthropicTool, type AnthropicExportOptions } from "./anthropic-tools";
export { toAnthropicToolResults, type AnsweredToolUse, type AnthropicToolResultBlock } from "./tool-result-blocks";
