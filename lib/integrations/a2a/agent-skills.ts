import type { AgentSkill } from "@a2a-js/sdk";
import type { JsonSchema, ToolSpec } from "../../tools/spec";
import { assertTarget } from "../assert-target";
import type { ExportResult } from "../export-result";

/**
 * One tool as an A2A AgentSkill. A skill has no schema field, so the description ends with a
 * compact list of the arguments; inputs and outputs are JSON. Throws ToolUsageError when the tool
 * is not exported to a2a.
 */
export function toA2ASkill(tool: ToolSpec): ExportResult<AgentSkill> {
  assertTarget(tool, "a2a");
  const args = argumentSummary(tool.inputSchema);
  return {
    output: {
      id: tool.name,
      name: tool.title || tool.name,
      description: args ? `${tool.description}\n\nArguments (JSON): ${args}` : tool.description,
      tags: [...tool.policy.tags],
      examples: [],
      inputModes: ["application/json"],
      outputModes: ["application/json"],
      securityRequirements: [],
    },
    warnings: [],
  };
}

/** Tools as A2A skills, in the order given. Throws ToolUsageError for a tool not exported to a2a. */
export function toA2ASkills(tools: ToolSpec[]): ExportResult<AgentSkill[]> {
  const results = tools.map(toA2ASkill);
  return { output: results.map((r) => r.output), warnings: results.flatMap((r) => r.warnings) };
}

/** "city: string (required), unit: celsius|fahrenheit": enough for a remote agent to phrase a request. */
function argumentSummary(schema: JsonSchema): string {
  const properties = schema.properties && typeof schema.properties === "object" ? (schema.properties as Record<string, JsonSchema>) : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties)
    .map(([name, property]) => {
      const type = Array.isArray(property?.enum)
        ? property.enum.map(String).join("|")
        : Array.isArray(property?.type)
          ? property.type.join("|")
          : String(property?.type ?? "any");
      return `${name}: ${type}${required.has(name) ? " (required)" : ""}`;
    })
    .join(", ");
}
