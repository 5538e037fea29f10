import type { AgentSkill } from "@a2a-js/sdk";
import type { JsonSchema, ToolSpec } from "../../tools/spec";
import { isSchemaNode, primaryType, resolveSchema, schemaVariants } from "../../json/schema-shape";
import { assertTarget } from "../assert-target";
import type { ExportResult } from "../export-result";

/** How deep an example follows objects, choices and `$ref`s before it settles for a placeholder. */
const MAX_EXAMPLE_DEPTH = 5;
/**
 * How many values one example is made of at most: a schema whose required fields refer back to it
 * (an imported server's, say) would otherwise make one of fields^depth values.
 */
const MAX_EXAMPLE_VALUES = 200;

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
      examples: [callExample(tool)],
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

/**
 * A data part that calls the tool, as JSON: each required argument with the schema's own example,
 * default, constant or first allowed value, else a placeholder of its type ("<city>" for a string,
 * an object's own required fields). Local `$ref`s are followed; a choice (`oneOf` / `anyOf`) gives
 * its first variant.
 */
function callExample(tool: ToolSpec): string {
  const args = sampleValue(tool.inputSchema, "arguments", tool.inputSchema, { left: MAX_EXAMPLE_VALUES });
  return JSON.stringify({ tool: tool.name, arguments: isSchemaNode(args) ? args : {} });
}

function sampleValue(root: JsonSchema, name: string, given: unknown, budget: { left: number }, depth = 0): unknown {
  if (!isSchemaNode(given) || budget.left-- <= 0) return `<${name}>`;
  const schema = resolveSchema(root, given);
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  // A schema that refers back to itself could go on for ever: a few levels are example enough.
  const deeper = depth < MAX_EXAMPLE_DEPTH;
  const variants = schemaVariants(schema);
  if (variants && deeper) return sampleValue(root, name, variants[0], budget, depth + 1);
  switch (primaryType(schema)) {
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object": {
      if (!deeper) return {};
      const properties = propertiesOf(schema);
      const required = Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === "string") : [];
      // No prototype: a field named __proto__ is a field like any other.
      const value: Record<string, unknown> = Object.create(null);
      // Once the example has all the values it may have, the fields left are left out.
      for (const key of required) {
        if (budget.left <= 0) break;
        value[key] = sampleValue(root, key, properties[key], budget, depth + 1);
      }
      return value;
    }
    default:
      return `<${name}>`;
  }
}

function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  return schema.properties && typeof schema.properties === "object" ? (schema.properties as Record<string, JsonSchema>) : {};
}

/** "city: string (required), unit: celsius|fahrenheit": enough for a remote agent to phrase a request. */
function argumentSummary(schema: JsonSchema): string {
  const properties = propertiesOf(schema);
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
