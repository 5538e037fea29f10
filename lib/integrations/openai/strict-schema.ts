import { toStrictJsonSchema } from "openai/lib/transform";
import type { JsonSchema } from "../../tools/spec";

/** The outcome of preparing a schema for OpenAI's strict mode. */
export type StrictSchemaResult = { strict: true; schema: JsonSchema; notes: string[] } | { strict: false; reason: string };

// Keys that describe a schema for people or other tools and never constrain a value: dropped.
const DROP = new Set([
  "example",
  "examples",
  "xml",
  "externalDocs",
  "deprecated",
  "readOnly",
  "writeOnly",
  "discriminator",
  "$schema",
  "$id",
  "$comment",
  "nullable",
]);
// Constraints strict mode does not take: kept for the model as text in the description.
const TO_DESCRIPTION = new Set([
  "default",
  "minLength",
  "maxLength",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "contentEncoding",
  "contentMediaType",
]);
// Keywords with no strict equivalent: the tool goes out non-strict.
const BLOCKING = new Set([
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "patternProperties",
  "propertyNames",
  "prefixItems",
  "additionalItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "minContains",
  "maxContains",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
]);
const KEEP = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "$ref",
  "$defs",
  "definitions",
  "description",
  "title",
  "pattern",
  "format",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "minItems",
  "maxItems",
]);
// String formats the Structured Outputs guide lists; others go to the description.
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);

class NotStrict extends Error {}

/**
 * Prepare a tool's input schema for OpenAI strict mode: close every object, make optional
 * properties required-but-nullable, move unsupported constraints into descriptions, then run the
 * SDK's own `toStrictJsonSchema`. Returns `strict: false` with the reason when the schema cannot be
 * made strict without changing what it accepts (open maps, tuples, `not`, ...). Never throws.
 */
export function toOpenAIStrictSchema(schema: JsonSchema): StrictSchemaResult {
  const notes: string[] = [];
  try {
    const prepared = prepare(structuredClone(schema), "", true, notes);
    const strict = toStrictJsonSchema(prepared as Parameters<typeof toStrictJsonSchema>[0]) as JsonSchema;
    return { strict: true, schema: strict, notes };
  } catch (error) {
    return { strict: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

function prepare(node: unknown, path: string, isRoot: boolean, notes: string[]): unknown {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
  const input = node as JsonSchema;
  const out: JsonSchema = {};
  const moved: string[] = [];
  const at = path || "/";
  for (const [key, value] of Object.entries(input)) {
    if (BLOCKING.has(key)) throw new NotStrict(`Schema at \`${at}\` uses \`${key}\`, which strict mode cannot express`);
    if (DROP.has(key) || key.startsWith("x-")) continue;
    if (TO_DESCRIPTION.has(key) || (key === "format" && !FORMATS.has(String(value)))) {
      moved.push(`${key}: ${JSON.stringify(value)}`);
      continue;
    }
    if (!KEEP.has(key)) {
      moved.push(`${key}: ${JSON.stringify(value)}`);
      continue;
    }
    out[key] = value;
  }
  if (input.oneOf) {
    // oneOf's "exactly one" has no strict form; anyOf accepts the same values when branches do not overlap.
    out.anyOf = [...((out.anyOf as unknown[]) ?? []), ...(input.oneOf as unknown[])];
    delete out.oneOf;
    notes.push(`${at}: oneOf became anyOf`);
  }
  if (moved.length) {
    out.description = [out.description, `(${moved.join(", ")})`].filter(Boolean).join(" ");
    notes.push(`${at}: ${moved.map((m) => m.split(":")[0]).join(", ")} moved to the description`);
  }
  for (const key of ["anyOf", "allOf"] as const) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((s, i) => prepare(s, `${path}/${key}/${i}`, false, notes));
  }
  for (const key of ["$defs", "definitions"] as const) {
    const defs = out[key];
    if (defs && typeof defs === "object") {
      out[key] = Object.fromEntries(Object.entries(defs).map(([name, s]) => [name, prepare(s, `${path}/${key}/${name}`, false, notes)]));
    }
  }
  const types = typeList(out.type);
  if (types.includes("array")) {
    if (Array.isArray(out.items)) throw new NotStrict(`Schema at \`${at}\` is a tuple, which strict mode cannot express`);
    if (out.items === undefined || out.items === true)
      throw new NotStrict(`Schema at \`${at}\` is an array without \`items\`; strict mode needs them`);
    out.items = prepare(out.items, `${path}/items`, false, notes);
  }
  if (types.includes("object") || out.properties !== undefined) {
    const additional = out.additionalProperties;
    if (additional !== undefined && additional !== false)
      throw new NotStrict(`Schema at \`${at}\` is an open map (additionalProperties), which strict mode cannot express`);
    const properties = (out.properties ?? {}) as Record<string, unknown>;
    if (!isRoot && out.properties === undefined)
      throw new NotStrict(`Schema at \`${at}\` is a free-form object, which strict mode cannot express`);
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    const optional: string[] = [];
    const next: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(properties)) {
      let value = prepare(child, `${path}/properties/${name}`, false, notes);
      if (!required.has(name)) {
        value = nullable(value);
        optional.push(name);
      }
      next[name] = value;
    }
    out.properties = next;
    out.required = Object.keys(next);
    out.additionalProperties = false;
    if (optional.length) notes.push(`${at}: optional ${optional.join(", ")} became required and nullable (null means left out)`);
  }
  return out;
}

function typeList(type: unknown): string[] {
  return Array.isArray(type) ? (type as string[]) : typeof type === "string" ? [type] : [];
}

function allowsNull(schema: JsonSchema): boolean {
  if (typeList(schema.type).includes("null")) return true;
  return Array.isArray(schema.anyOf) && (schema.anyOf as JsonSchema[]).some((s) => s && typeof s === "object" && allowsNull(s));
}

/** `schema` that also accepts null: strict mode's way of saying "optional". */
function nullable(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  const schema = value as JsonSchema;
  if (allowsNull(schema)) return schema;
  if (typeof schema.type === "string" || Array.isArray(schema.type)) {
    if (schema.const !== undefined) {
      const { description, ...rest } = schema;
      return { anyOf: [rest, { type: "null" }], ...(description !== undefined && { description }) };
    }
    const out: JsonSchema = { ...schema, type: [...typeList(schema.type), "null"] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  const { description, ...rest } = schema;
  return { anyOf: [rest, { type: "null" }], ...(description !== undefined && { description }) };
}
