import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { resolveRef } from "../json/pointer";
import { ToolDefinitionError } from "./errors";
import type { JsonSchema } from "./spec";

/** One problem with a value, located by JSON Pointer ("" is the root). */
export interface SchemaIssue {
  path: string;
  message: string;
}

// Imported schemas carry vendor keywords (x-*, example, nullable): strict mode would refuse them.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);

const compiled = new WeakMap<object, ValidateFunction>();

/** A compiled validator for `schema`, cached by the schema object's identity. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Problems of `value` against `schema`; an empty list when it is valid. */
export function validateAgainst(schema: JsonSchema, value: unknown): SchemaIssue[] {
  const validate = compileSchema(schema);
  return validate(value) ? [] : toIssues(validate.errors ?? []);
}

function toIssues(errors: ErrorObject[]): SchemaIssue[] {
  const issues = errors.map((error): SchemaIssue => {
    const params = error.params as Record<string, unknown>;
    if (error.keyword === "required") return { path: `${error.instancePath}/${String(params.missingProperty)}`, message: "is required" };
    if (error.keyword === "additionalProperties")
      return { path: `${error.instancePath}/${String(params.additionalProperty)}`, message: "is not allowed" };
    if (error.keyword === "enum")
      return {
        path: error.instancePath,
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    return { path: error.instancePath, message: error.message ?? "is invalid" };
  });
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Check that `schema` is a usable JSON Schema (2020-12) whose `$ref`s resolve inside it and, for
 * inputs, that its root is an object. Throws ToolDefinitionError naming the path of the problem,
 * e.g. "inputSchema/properties/n/type". The validator itself is compiled on first use.
 */
export function assertUsableSchema(schema: unknown, where: "inputSchema" | "outputSchema", toolName: string): void {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema))
    throw new ToolDefinitionError(`Tool "${toolName}": ${where} must be a JSON Schema object`, where);
  const record = schema as JsonSchema;
  if (where === "inputSchema" && record.type !== "object")
    throw new ToolDefinitionError(
      `Tool "${toolName}": inputSchema/type must be "object" (tool arguments are an object)`,
      "inputSchema/type",
    );
  if (!ajv.validateSchema(record)) {
    const first = ajv.errors?.[0];
    const path = `${where}${first?.instancePath ?? ""}`;
    throw new ToolDefinitionError(`Tool "${toolName}": ${path} ${first?.message ?? "is not a valid JSON Schema"}`, path);
  }
  // Compiling costs 3-6 ms a schema (20 s for a 2,000-operation import), so it waits for the first
  // call; the usual reason a valid schema fails to compile, a $ref to nowhere, is checked here instead.
  const broken = brokenRef(record, record, "");
  if (broken)
    throw new ToolDefinitionError(
      `Tool "${toolName}": ${where} cannot be compiled: $ref "${broken.ref}" at ${where}${broken.path} does not resolve inside the schema`,
      where,
    );
}

/** The first `$ref` that does not point inside `root` (nothing outside a tool's schema is ever fetched). */
function brokenRef(node: unknown, root: JsonSchema, path: string): { ref: string; path: string } | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = brokenRef(node[i], root, `${path}/${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (node === null || typeof node !== "object") return undefined;
  const record = node as Record<string, unknown>;
  if (typeof record.$ref === "string" && resolveRef(root, record.$ref) === undefined) return { ref: record.$ref, path };
  for (const [key, value] of Object.entries(record)) {
    // Values under these keys are data, not schemas: a "$ref" inside them is not a reference.
    if (key === "enum" || key === "const" || key === "default" || key === "examples") continue;
    const found = brokenRef(value, root, `${path}/${key}`);
    if (found) return found;
  }
  return undefined;
}
