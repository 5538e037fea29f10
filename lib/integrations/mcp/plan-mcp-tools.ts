import { localToolName, namePrefix, uniqueLocalName } from "../../tools/remote-names";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { MAX_SCHEMA_DEPTH } from "../../tools/schema";
import { valueDepthExceeds } from "../../json/depth";
import { ToolDefinitionError } from "../../tools/errors";
import { normalise } from "../../tools/registry";
import type { Effects, JsonSchema, ToolSpecInput } from "../../tools/spec";
import { McpOptionsError } from "./import-errors";

/** The hints an MCP server may give about a tool, as it gave them (a hint it left out is absent). */
export interface McpHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/**
 * What an MCP tool's handler needs to be rebuilt after a restart (the tool's name on its server),
 * and the server's own hints about it, which its policy was read from (shown on the tool's page).
 */
export interface McpBinding {
  remoteName: string;
  annotations?: McpHints;
}

export interface PlannedMcpTool {
  remoteName: string;
  spec: ToolSpecInput & { name: string; binding: Record<string, unknown> };
  effects: Effects;
  confirm: boolean;
}

export interface McpPlan {
  tools: PlannedMcpTool[];
  warnings: string[];
}

export interface McpPlanOptions {
  /** Put before every local name; letters, digits and _ only (others become _). */
  prefix?: string;
  /** The call time limit of every tool, ms. */
  timeoutMs?: number;
}

const MAX_DESCRIPTION = 8192;
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

/**
 * The console's tools for a server's tools: sanitised, prefixed, unique names; policy from the
 * server's annotations, read the way MCP defines their defaults (a tool that does not say it only
 * reads may change things, and one that does not say otherwise may destroy them, so it asks for a
 * person's approval); schemas adapted to JSON Schema 2020-12. A tool the registry would refuse, or
 * one that needs MCP tasks, is left out with a warning. Throws McpOptionsError for a bad prefix.
 */
export function planMcpTools(remote: readonly Tool[], options: McpPlanOptions = {}): McpPlan {
  const checked = namePrefix(options.prefix ?? "");
  if ("problem" in checked) throw new McpOptionsError(checked.problem);
  const { prefix } = checked;
  const warnings: string[] = [];
  const tools: PlannedMcpTool[] = [];
  const taken = new Set<string>();
  for (const tool of remote) {
    if (tool.execution?.taskSupport === "required") {
      warnings.push(`Tool "${tool.name}" skipped: it only runs as an MCP task, which imported tools do not use`);
      continue;
    }
    const name = uniqueLocalName(localToolName(prefix, tool.name, "tool"), tool.name, taken);
    const annotations = tool.annotations ?? {};
    const readOnly = annotations.readOnlyHint === true;
    const destructive = !readOnly && annotations.destructiveHint !== false;
    const effects: Effects = readOnly ? "read" : destructive ? "destructive" : "write";
    const spec = {
      name,
      title: (tool.title ?? annotations.title ?? tool.name).trim().slice(0, 200) || name,
      description: (tool.description ?? "").slice(0, MAX_DESCRIPTION),
      inputSchema: portableSchema(tool.inputSchema as JsonSchema),
      ...(tool.outputSchema && { outputSchema: portableSchema(tool.outputSchema as JsonSchema) }),
      policy: {
        effects,
        confirm: destructive,
        idempotent: readOnly ? annotations.idempotentHint !== false : annotations.idempotentHint === true,
        openWorld: annotations.openWorldHint !== false,
        tags: ["mcp"],
        ...(options.timeoutMs && { timeoutMs: options.timeoutMs }),
      },
      kind: "mcp",
      binding: { remoteName: tool.name, annotations: hintsOf(annotations) } satisfies McpBinding as Record<string, unknown>,
    };
    try {
      normalise(spec);
    } catch (error) {
      if (!(error instanceof ToolDefinitionError)) throw error;
      warnings.push(`Tool "${tool.name}" skipped: ${error.message}`);
      continue;
    }
    taken.add(name);
    if (name !== `${prefix}${tool.name}`) warnings.push(`Tool "${tool.name}" is registered as "${name}"`);
    tools.push({ remoteName: tool.name, spec, effects, confirm: destructive });
  }
  return { tools, warnings };
}

/**
 * A server's schema as JSON Schema 2020-12, which the console validates with: the `$schema` of
 * an older draft is dropped (SDK servers send draft-07), and draft-07 tuples (`items` as an array,
 * `additionalItems`) become `prefixItems` and `items`. A schema nested too deep is returned as it
 * is, for the registry to refuse with its own message.
 */
export function portableSchema(schema: JsonSchema): JsonSchema {
  if (valueDepthExceeds(schema, MAX_SCHEMA_DEPTH)) return schema;
  const copy = structuredClone(schema);
  if (typeof copy.$schema === "string" && copy.$schema.replace(/#$/, "") !== DRAFT_2020) delete copy.$schema;
  const stack: unknown[] = [copy];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.items)) {
      record.prefixItems = record.items;
      if ("additionalItems" in record) {
        record.items = record.additionalItems;
        delete record.additionalItems;
      } else delete record.items;
    }
    stack.push(...Object.values(record));
  }
  return copy;
}

/** The boolean hints among a tool's annotations, and nothing else a server put there. */
function hintsOf(annotations: Record<string, unknown>): McpHints {
  return Object.fromEntries(HINTS.filter((hint) => typeof annotations[hint] === "boolean").map((hint) => [hint, annotations[hint]]));
}
