import { resolveRef } from "../../json/pointer";
import { isJsonObject } from "../../json/canonical";
import type { JsonSchema } from "../../tools/spec";

/** Gemini's OpenAPI-subset `Schema` (`Schema` in `@google/genai`, with `type` as the enum's string values). */
export interface GeminiSchema {
  type?: "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL";
  description?: string;
  title?: string;
  format?: string;
  nullable?: boolean;
  enum?: string[];
  default?: unknown;
  example?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: string;
  maxLength?: string;
  minItems?: string;
  maxItems?: string;
  minProperties?: string;
  maxProperties?: string;
  items?: GeminiSchema;
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  anyOf?: GeminiSchema[];
}

const TYPES: Record<string, GeminiSchema["type"]> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
  null: "NULL",
};
// Gemini carries int64 counts as strings.
const COUNTS = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"] as const;

/**
 * A 2020-12 schema as Gemini's legacy `Schema` subset: refs inlined, `oneOf` as `anyOf`, `allOf`
 * merged, null branches as `nullable`, types upper-cased, counts as strings. What the subset cannot
 * hold (recursion, non-string enums, open maps) is dropped and reported in `notes`.
 */
export function toGeminiSchema(schema: JsonSchema, notes: string[]): GeminiSchema {
  return convert(schema, schema, [], "", notes);
}

function convert(input: unknown, root: JsonSchema, stack: string[], path: string, notes: string[]): GeminiSchema {
  if (!isJsonObject(input)) return {};
  let node = input;
  const at = path || "/";
  if (typeof node.$ref === "string") {
    const ref = node.$ref;
    if (stack.includes(ref)) {
      notes.push(`${at}: recursive ${ref} cut to a plain object`);
      return { type: "OBJECT", ...(typeof node.description === "string" && { description: node.description }) };
    }
    const target = pointer(root, ref);
    if (!target) {
      notes.push(`${at}: unresolvable ${ref} dropped`);
      return {};
    }
    const { $ref: _ref, ...siblings } = node;
    return convert({ ...target, ...siblings }, root, [...stack, ref], path, notes);
  }
  if (Array.isArray(node.allOf)) {
    const merged: JsonSchema = { ...node };
    delete merged.allOf;
    for (const part of node.allOf as unknown[]) {
      const resolved = isJsonObject(part) && typeof part.$ref === "string" ? (pointer(root, part.$ref) ?? {}) : part;
      if (!isJsonObject(resolved)) continue;
      for (const [key, value] of Object.entries(resolved)) {
        if (key === "properties" && isJsonObject(value)) merged.properties = { ...(merged.properties as object), ...value };
        else if (key === "required" && Array.isArray(value)) merged.required = [...((merged.required as string[]) ?? []), ...value];
        else if (!(key in merged)) merged[key] = value;
      }
    }
    node = merged;
  }
  const out: GeminiSchema = {};
  if (typeof node.description === "string") out.description = node.description;
  if (typeof node.title === "string") out.title = node.title;
  if (typeof node.pattern === "string") out.pattern = node.pattern;
  if (typeof node.format === "string") out.format = node.format;
  if (typeof node.minimum === "number") out.minimum = node.minimum;
  if (typeof node.maximum === "number") out.maximum = node.maximum;
  if (typeof node.exclusiveMinimum === "number") out.minimum = node.exclusiveMinimum;
  if (typeof node.exclusiveMaximum === "number") out.maximum = node.exclusiveMaximum;
  for (const key of COUNTS) if (typeof node[key] === "number") out[key] = String(node[key]);
  if (node.default !== undefined) out.default = node.default;
  if (Array.isArray(node.examples) && node.examples.length) out.example = node.examples[0];
  if (node.nullable === true) out.nullable = true;

  const branches = [...(Array.isArray(node.anyOf) ? node.anyOf : []), ...(Array.isArray(node.oneOf) ? node.oneOf : [])] as unknown[];
  if (branches.length) {
    const nonNull = branches.filter((b) => !(isJsonObject(b) && b.type === "null"));
    if (nonNull.length < branches.length) out.nullable = true;
    const converted = nonNull.map((b, i) => convert(b, root, stack, `${path}/anyOf/${i}`, notes));
    if (converted.length === 1)
      return { ...converted[0], ...out, ...(converted[0]!.description && !out.description && { description: converted[0]!.description }) };
    if (converted.length) out.anyOf = converted;
  }

  let types = Array.isArray(node.type) ? (node.type as string[]) : typeof node.type === "string" ? [node.type] : [];
  if (types.includes("null")) {
    out.nullable = true;
    types = types.filter((t) => t !== "null");
  }
  if (types.length > 1) {
    out.anyOf = types.map((t) => ({ type: TYPES[t] }));
  } else if (types.length === 1) {
    out.type = TYPES[types[0]!];
  }
  if (node.const !== undefined) {
    if (typeof node.const === "string") Object.assign(out, { type: "STRING", enum: [node.const] });
    else notes.push(`${at}: const ${JSON.stringify(node.const)} dropped (Gemini enums hold strings only)`);
  }
  if (Array.isArray(node.enum)) {
    const values = node.enum.filter((v) => v !== null);
    if (values.length < node.enum.length) out.nullable = true;
    if (values.every((v) => typeof v === "string")) {
      out.enum = values as string[];
      out.type ??= "STRING";
      if (out.type === "STRING") out.format = "enum";
    } else {
      notes.push(`${at}: enum of non-strings dropped (Gemini enums hold strings only)`);
      out.description = [out.description, `One of: ${values.map((v) => JSON.stringify(v)).join(", ")}.`].filter(Boolean).join(" ");
    }
  }
  if (node.items !== undefined) {
    if (Array.isArray(node.items)) notes.push(`${at}: tuple items dropped`);
    else out.items = convert(node.items, root, stack, `${path}/items`, notes);
  }
  if (isJsonObject(node.properties)) {
    out.type ??= "OBJECT";
    out.properties = Object.fromEntries(
      Object.entries(node.properties).map(([name, s]) => [name, convert(s, root, stack, `${path}/properties/${name}`, notes)]),
    );
    if (Array.isArray(node.required) && node.required.length) out.required = [...new Set(node.required as string[])];
  }
  if (isJsonObject(node.additionalProperties) || node.additionalProperties === true)
    notes.push(`${at}: additionalProperties dropped (the subset has no maps)`);
  return out;
}

function pointer(root: JsonSchema, ref: string): JsonSchema | undefined {
  const node = resolveRef(root, ref);
  return isJsonObject(node) ? node : undefined;
}
