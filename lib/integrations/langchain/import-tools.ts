import {
  Tool as StringInputTool,
  isLangChainTool,
  isStructuredTool,
  ToolInputParsingException,
  type StructuredToolInterface,
} from "@langchain/core/tools";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { ToolArgsInvalid, ToolError } from "../../execution/errors";
import { ToolDefinitionError } from "../../tools/errors";
import type { ToolHandler } from "../../tools/handler";
import type { ToolRegistry } from "../../tools/registry";
import type { JsonSchema, RegisteredTool, ToolPolicyInput } from "../../tools/spec";
import { isToolException } from "./tool-exception";

export interface ImportLangChainOptions {
  /** Put before every name, e.g. "lc_". */
  prefix?: string;
  /** Policy for every imported tool (LangChain tools carry none): effects, confirm, timeout... */
  policy?: ToolPolicyInput;
}

/**
 * Add LangChain tools to the registry, all or nothing, as kind "langchain". The schema is the
 * tool's own (converted to JSON Schema); arguments the tool's zod schema refuses become
 * ToolArgsInvalid before the call, and a ToolException becomes a ToolError. The handlers live in
 * this process only: after a restart the tools stay listed but fail until imported again.
 * Rejects with ToolDefinitionError (not a LangChain tool, bad name) or DuplicateTool; nothing is added then.
 */
export async function importLangChainTools(
  registry: ToolRegistry,
  tools: unknown[],
  options: ImportLangChainOptions = {},
): Promise<RegisteredTool[]> {
  const prefix = options.prefix ?? "";
  const inputs = tools.map((candidate, index) => {
    if (!isLangChainTool(candidate) || !isStructuredTool(candidate)) throw new ToolDefinitionError(`Item ${index} is not a LangChain tool`);
    const lcTool = candidate as StructuredToolInterface;
    const stringInput = lcTool instanceof StringInputTool;
    const name = `${prefix}${lcTool.name.replace(/[^A-Za-z0-9_]/g, "_")}`;
    const inputSchema = stringInput
      ? { type: "object", properties: { input: { type: "string" } }, required: ["input"] }
      : schemaOf(lcTool, name);
    const handler: ToolHandler = async (args, call) => {
      const zod = (
        lcTool.schema as {
          safeParse?: (v: unknown) => { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } };
        }
      ).safeParse;
      if (!stringInput && typeof zod === "function") {
        const checked = zod.call(lcTool.schema, args);
        if (!checked.success) {
          throw new ToolArgsInvalid(
            name,
            (checked.error?.issues ?? []).map((i) => ({
              path: i.path.length ? `/${i.path.map(String).join("/")}` : "",
              message: i.message,
            })),
          );
        }
      }
      try {
        const output: unknown = await lcTool.invoke((stringInput ? args.input : args) as never, { signal: call.signal });
        return toValue(output);
      } catch (error) {
        if (isToolException(error)) throw new ToolError(error.message);
        if (error instanceof ToolInputParsingException) throw new ToolArgsInvalid(name, [{ path: "", message: error.message }]);
        throw error;
      }
    };
    return { spec: { name, description: lcTool.description || name, inputSchema, kind: "langchain", policy: options.policy }, handler };
  });
  return registry.addMany(inputs);
}

function schemaOf(lcTool: StructuredToolInterface, name: string): JsonSchema {
  let schema: JsonSchema;
  try {
    schema = toJsonSchema(lcTool.schema as Parameters<typeof toJsonSchema>[0]) as JsonSchema;
  } catch (error) {
    throw new ToolDefinitionError(
      `Tool "${name}": its schema cannot be converted to JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // The registry validates with 2020-12; a draft-07 marker from zod v3 or plain schemas would point Ajv at a meta-schema it lacks.
  const { $schema: _ignored, ...rest } = schema;
  return rest.type === undefined && rest.properties ? { type: "object", ...rest } : rest;
}

/** A LangChain tool's return value as a JSON value: ToolMessages give their content (and artifact). */
function toValue(output: unknown): unknown {
  if (output && typeof output === "object" && "content" in output && (output as { _getType?: unknown })._getType) {
    const message = output as { content: unknown; artifact?: unknown };
    return message.artifact !== undefined ? { content: message.content, artifact: message.artifact } : message.content;
  }
  return output === undefined ? null : output;
}
