import { resolveRef } from "../../json/pointer";
import { isJsonObject } from "../../json/canonical";
import type { JsonSchema } from "../../tools/spec";

/**
 * Arguments a strict-mode model sent, with the `null`s it used for "left out" removed wherever the
 * tool's own schema does not accept null: what the executor should validate and run.
 */
export function dropStrictNulls(schema: JsonSchema, args: unknown): unknown {
  return walk(schema, args, schema, 0);
}

function walk(schema: unknown, value: unknown, root: JsonSchema, depth: number): unknown {
  if (depth > 64 || !isJsonObject(schema)) return value;
  const resolved = resolve(schema, root);
  if (Array.isArray(value)) {
    return isJsonObject(resolved.items) ? value.map((item) => walk(resolved.items, item, root, depth + 1)) : value;
  }
  if (!isJsonObject(value)) return value;
  const properties = isJsonObject(resolved.properties) ? resolved.properties : {};
  const required = new Set(Array.isArray(resolved.required) ? (resolved.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (item === null && !required.has(key) && !(isJsonObject(property) && acceptsNull(resolve(property, root), root))) continue;
    out[key] = property === undefined ? item : walk(property, item, root, depth + 1);
  }
  return out;
}

function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const node = resolveRef(root, ref);
  return isJsonObject(node) ? node : schema;
}

function acceptsNull(schema: JsonSchema, root: JsonSchema): boolean {
  const type = schema.type;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some((b) => isJsonObject(b) && acceptsNull(resolve(b, root), root))) return true;
  }
  return false;
}
