import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema, ToolSpec } from "../../tools/spec";
import { assertTarget } from "../assert-target";
import type { ExportResult } from "../export-result";

/** `_meta` key saying the console asks a person before the call runs (MCP has no field for it). */
export const CONFIRM_META = "agui-console/confirm";

export type { McpTool };

/**
 * One tool as an MCP tool definition: annotations from the policy, and an output schema wrapped as
 * `{result: ...}` when it is not an object (MCP wants object output schemas; results then carry
 * `structuredContent: {result: value}`, see `wrapsResult`). Throws ToolUsageError when the tool is
 * not exported to mcp.
 */
export function toMcpTool(tool: ToolSpec): ExportResult<McpTool> {
  assertTarget(tool, "mcp");
  const { policy } = tool;
  const readOnly = policy.effects === "read";
  const output: McpTool = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: { ...structuredClone(tool.inputSchema), type: "object" } as McpTool["inputSchema"],
    annotations: {
      title: tool.title,
      readOnlyHint: readOnly,
      // MCP's default is destructive: say it either way for tools that change things.
      ...(!readOnly && { destructiveHint: policy.effects === "destructive" }),
      idempotentHint: policy.idempotent,
      openWorldHint: policy.openWorld,
    },
    _meta: { [CONFIRM_META]: policy.confirm },
  };
  if (tool.outputSchema) {
    output.outputSchema = (
      wrapsResult(tool.outputSchema)
        ? { type: "object", properties: { result: structuredClone(tool.outputSchema) }, required: ["result"] }
        : structuredClone(tool.outputSchema)
    ) as McpTool["outputSchema"];
  }
  return { output, warnings: [] };
}

/** Tools as MCP tool definitions, in the order given. Throws ToolUsageError for a tool not exported to mcp. */
export function toMcpTools(tools: ToolSpec[]): ExportResult<McpTool[]> {
  const results = tools.map(toMcpTool);
  return { output: results.map((r) => r.output), warnings: results.flatMap((r) => r.warnings) };
}

/** True when an output schema is not a plain object schema, so results ride under `result`. */
export function wrapsResult(outputSchema: JsonSchema): boolean {
  return outputSchema.type !== "object";
}
