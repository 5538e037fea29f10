import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { MAX_INPUT_DEPTH, valueDepthExceeds } from "../json/depth";
import { encodeToken, resolveRef } from "../json/pointer";
import { ToolDefinitionError } from "./errors";
import { linearRegExp, patternProblem } from "./linear-regexp";
import type { JsonSchema } from "./spec";

/** A tool schema nested deeper than this is refused at definition: compiling and walking it recurse. */
export const MAX_SCHEMA_DEPTH = 256;

/** One problem with a value, located by JSON Pointer ("" is the root). */
export interface SchemaIssue {
  path: string;
  message: string;
}

// Imported schemas carry vendor keywords (x-*, example, nullable): strict mode would refuse them.
// `pattern` and `patternProperties` run on a linear-time engine: schemas come from other parties.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, code: { regExp: linearRegExp } });
addFormats(ajv);

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * A compiled validator for `schema`, cached by the schema object's identity. Throws
 * ToolDefinitionError when the schema cannot be compiled (a tool stored before its patterns were
 * checked, say), so a call is refused with a reason rather than failing inside the validator.
 */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      throw new ToolDefinitionError(`The tool's schema cannot be compiled: ${error instanceof Error ? error.message : String(error)}`);
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * Problems of `value` against `schema`; an empty list when it is valid. A value nested deeper
 * than `maxDepth` (MAX_INPUT_DEPTH unless given) is one problem at the root, found before the
 * validator, or anything else that recurses, sees it. Throws what compileSchema throws.
 */
export function validateAgainst(schema: JsonSchema, value: unknown, maxDepth = MAX_INPUT_DEPTH): SchemaIssue[] {
  if (valueDepthExceeds(value, maxDepth)) return [{ path: "", message: `is nested deeper than ${maxDepth} levels` }];
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
  if (valueDepthExceeds(record, MAX_SCHEMA_DEPTH))
    throw new ToolDefinitionError(`Tool "${toolName}": ${where} is nested deeper than ${MAX_SCHEMA_DEPTH} levels`, where);
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
  const pattern = unsupportedPatterns(record)[0];
  if (pattern) throw new ToolDefinitionError(`Tool "${toolName}": ${where}${pattern.path} ${pattern.reason}`, `${where}${pattern.path}`);
}

/** A `pattern` (or `patternProperties` key) the console cannot check, located by JSON Pointer into its schema. */
export interface UnsupportedPattern {
  path: string;
  /** The same location as keys, unescaped: the last is "pattern" or the patternProperties key. */
  keys: string[];
  pattern: string;
  reason: string;
}

// Where JSON Schema 2020-12 (and the draft-07 forms ajv also reads) keeps subschemas: one schema,
// a list of them, or a map of names to them. Anything else is data or an unknown keyword, whose
// strings ajv never compiles.
const ONE_SCHEMA = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
]);
const SCHEMA_LIST = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
const SCHEMA_MAP = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * Every `pattern` and `patternProperties` key in `schema` that the linear-time engine refuses (or
 * that is no regular expression at all), in document order. Walks without recursion.
 */
export function unsupportedPatterns(schema: JsonSchema): UnsupportedPattern[] {
  const found: UnsupportedPattern[] = [];
  const check = (pattern: string, keys: string[]) => {
    const reason = patternProblem(pattern);
    if (reason) found.push({ path: keys.map((key) => `/${encodeToken(key)}`).join(""), keys, pattern, reason });
  };
  const stack: Array<[unknown, string[]]> = [[schema, []]];
  while (stack.length) {
    const [node, keys] = stack.pop()!;
    if (node === null || typeof node !== "object" || Array.isArray(node)) continue;
    const children: Array<[unknown, string[]]> = [];
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      const at = [...keys, key];
      if (key === "pattern" && typeof value === "string") check(value, at);
      if (key === "patternProperties" && value !== null && typeof value === "object" && !Array.isArray(value))
        for (const pattern of Object.keys(value)) check(pattern, [...at, pattern]);
      if (ONE_SCHEMA.has(key)) children.push([value, at]);
      if (SCHEMA_LIST.has(key) && Array.isArray(value)) value.forEach((item, i) => children.push([item, [...at, String(i)]]));
      if (SCHEMA_MAP.has(key) && value !== null && typeof value === "object" && !Array.isArray(value))
        for (const [name, item] of Object.entries(value)) children.push([item, [...at, name]]);
    }
    // Reversed onto the stack, so they are visited in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return found;
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
