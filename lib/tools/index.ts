export * from "./spec";
export * from "./errors";
export type { ToolHandler, ToolCallInfo, ToolReporter } from "./handler";
export { defineTool, type BuiltinTool } from "./define-tool";
export {
  ToolRegistry,
  normalise,
  definitionDigest,
  type ToolListFilter,
  type ToolPage,
  type ToolSettings,
  type HandlerBinder,
  type ToolInput,
} from "./registry";
export { compileSchema, validateAgainst, assertUsableSchema, type SchemaIssue } from "./schema";
