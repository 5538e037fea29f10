import { z } from "zod";
import type { ToolHandler } from "./handler";
import type { JsonSchema, ToolPolicyInput, ToolSpecInput } from "./spec";

/** A built-in tool: its definition and the typed function that runs it. */
export interface BuiltinTool {
  spec: ToolSpecInput & { kind: "builtin" };
  handler: ToolHandler;
}

export interface DefineToolOptions<Input extends z.ZodObject, Output extends z.ZodType> {
  name: string;
  title?: string;
  description: string;
  input: Input;
  output?: Output;
  policy?: ToolPolicyInput;
  /** Runs with arguments the executor checked against `input`'s JSON Schema; defaults are not filled in. */
  handler: ToolHandler<z.input<Input>, z.input<Output>>;
}

/**
 * Define a built-in tool with typed arguments. The zod schemas become the tool's JSON Schemas
 * (2020-12), so the executor validates every surface's calls the same way.
 */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodType = z.ZodUnknown>(
  options: DefineToolOptions<Input, Output>,
): BuiltinTool {
  const spec: BuiltinTool["spec"] = {
    name: options.name,
    title: options.title,
    description: options.description,
    inputSchema: toJsonSchema(options.input, "input"),
    policy: options.policy,
    kind: "builtin",
  };
  if (options.output) spec.outputSchema = toJsonSchema(options.output, "output");
  return { spec, handler: options.handler as ToolHandler };
}

function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "throw" });
  return rest as JsonSchema;
}
