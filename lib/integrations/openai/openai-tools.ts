import { assertTarget } from "../assert-target";
import type { ExportResult, ExportWarning } from "../export-result";
import type { JsonSchema, ToolSpec } from "../../tools/spec";
import { toOpenAIStrictSchema } from "./strict-schema";

export interface OpenAIExportOptions {
  /** Ask for strict mode (default true); a schema that cannot be strict goes out with `strict: false` and a warning. */
  strict?: boolean;
}

/** A Chat Completions function tool (`ChatCompletionFunctionTool` in the `openai` SDK). */
export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema; strict: boolean };
}

/** A Responses API function tool, flat (`FunctionTool` in the `openai` SDK). */
export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

interface Prepared {
  parameters: JsonSchema;
  strict: boolean;
  warnings: ExportWarning[];
}

function prepare(tool: ToolSpec, options: OpenAIExportOptions): Prepared {
  assertTarget(tool, "openai");
  if (options.strict === false) return { parameters: structuredClone(tool.inputSchema), strict: false, warnings: [] };
  const result = toOpenAIStrictSchema(tool.inputSchema);
  if (!result.strict) {
    return {
      parameters: structuredClone(tool.inputSchema),
      strict: false,
      warnings: [{ tool: tool.name, message: `exported with strict: false: ${result.reason}` }],
    };
  }
  return {
    parameters: result.schema,
    strict: true,
    warnings: result.notes.map((message) => ({ tool: tool.name, message: `strict mode: ${message}` })),
  };
}

/** One tool in Chat Completions format. Throws ToolUsageError when the tool is not exported to openai. */
export function toOpenAIChatTool(tool: ToolSpec, options: OpenAIExportOptions = {}): ExportResult<OpenAIChatTool> {
  const { parameters, strict, warnings } = prepare(tool, options);
  return { output: { type: "function", function: { name: tool.name, description: tool.description, parameters, strict } }, warnings };
}

/** Tools in Chat Completions format, in the order given. Throws ToolUsageError for a tool not exported to openai. */
export function toOpenAIChatTools(tools: ToolSpec[], options: OpenAIExportOptions = {}): ExportResult<OpenAIChatTool[]> {
  return collect(tools.map((tool) => toOpenAIChatTool(tool, options)));
}

/** One tool in Responses API format. Throws ToolUsageError when the tool is not exported to openai. */
export function toOpenAIResponsesTool(tool: ToolSpec, options: OpenAIExportOptions = {}): ExportResult<OpenAIResponsesTool> {
  const { parameters, strict, warnings } = prepare(tool, options);
  return { output: { type: "function", name: tool.name, description: tool.description, parameters, strict }, warnings };
}

/** Tools in Responses API format, in the order given. Throws ToolUsageError for a tool not exported to openai. */
export function toOpenAIResponsesTools(tools: ToolSpec[], options: OpenAIExportOptions = {}): ExportResult<OpenAIResponsesTool[]> {
  return collect(tools.map((tool) => toOpenAIResponsesTool(tool, options)));
}

function collect<T>(results: Array<ExportResult<T>>): ExportResult<T[]> {
  return { output: results.map((r) => r.output), warnings: results.flatMap((r) => r.warnings) };
}
