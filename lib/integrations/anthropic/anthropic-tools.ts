import { assertTarget } from "../assert-target";
import type { ExportResult } from "../export-result";
import type { JsonSchema, ToolSpec } from "../../tools/spec";

/** A Messages API tool (`Tool` in `@anthropic-ai/sdk`). */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema & { type: "object" };
  cache_control?: { type: "ephemeral" };
}

export interface AnthropicExportOptions {
  /** Mark the last tool with `cache_control` so the whole tool list is cached (default false). */
  cache?: boolean;
}

/** One tool in Messages API format. Throws ToolUsageError when the tool is not exported to anthropic. */
export function toAnthropicTool(tool: ToolSpec): ExportResult<AnthropicTool> {
  assertTarget(tool, "anthropic");
  // Anthropic takes 2020-12 as is: optional properties, $defs and anyOf need no rewriting.
  const input_schema = { ...structuredClone(tool.inputSchema), type: "object" as const };
  return { output: { name: tool.name, description: tool.description, input_schema }, warnings: [] };
}

/** Tools in Messages API format, in the order given. Throws ToolUsageError for a tool not exported to anthropic. */
export function toAnthropicTools(tools: ToolSpec[], options: AnthropicExportOptions = {}): ExportResult<AnthropicTool[]> {
  const results = tools.map(toAnthropicTool);
  const output = results.map((r) => r.output);
  const last = output.at(-1);
  if (options.cache && last) last.cache_control = { type: "ephemeral" };
  return { output, warnings: results.flatMap((r) => r.warnings) };
}
