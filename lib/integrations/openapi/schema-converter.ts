import { decodeToken, encodeToken, resolveRef } from "../../json/pointer";
import { isJsonObject } from "../../json/canonical";
import { MAX_SCHEMA_DEPTH } from "../../tools/schema";
import type { JsonSchema } from "../../tools/spec";
import { OpenApiDocumentError } from "./errors";

/** Input schemas leave out readOnly properties; output schemas leave out writeOnly ones. */
export type SchemaDirection = "input" | "output";

const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;
// Keys that only help people or code generators; a model and a validator do without them.
const DROPPED = new Set(["xml", "externalDocs", "discriminator"]);
const SUBSCHEMA = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "additionalItems",
]);
const SUBSCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SUBSCHEMA_MAPS = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"]);

/**
 * Turns OpenAPI schemas into self-contained JSON Schema 2020-12: component schemas become `$defs`
 * (so recursive types survive as `$ref`s instead of endless inlining), other local `$ref`s are
 * inlined, 3.0's `nullable`, boolean `exclusiveMinimum/Maximum` and `example` are upgraded.
 * Never fetches anything: a remote or file `$ref` is an OpenApiDocumentError, as is a broken one.
 */
export class SchemaConverter {
  private readonly cache = new Map<string, { schema: unknown; refs: Set<string> }>();
  private readonly components: Record<string, unknown>;

  constructor(
    private readonly document: Record<string, unknown>,
    private readonly is30: boolean,
  ) {
    const components = isJsonObject(document.components) ? document.components : {};
    this.components = isJsonObject(components.schemas) ? components.schemas : {};
  }

  /** `schema` converted, with the `$defs` it needs (transitively). */
  convert(schema: unknown, direction: SchemaDirection, where: string): { schema: JsonSchema; defs: Record<string, unknown> } {
    const refs = new Set<string>();
    const converted = this.walk(schema, direction, refs, [], where, 0);
    const defs: Record<string, unknown> = {};
    const queue = [...refs];
    while (queue.length) {
      const name = queue.pop()!;
      if (Object.hasOwn(defs, name)) continue;
      const def = this.definition(name, direction, where);
      defs[name] = def.schema;
      for (const next of def.refs) if (!Object.hasOwn(defs, next)) queue.push(next);
    }
    return { schema: isJsonObject(converted) ? converted : {}, defs };
  }

  /** Follow `$ref`s of a parameter, request body or response object. */
  deref<T = Record<string, unknown>>(value: unknown, where: string): T {
    let node = value;
    const seen = new Set<string>();
    while (isJsonObject(node) && typeof node.$ref === "string") {
      const ref = node.$ref;
      if (seen.has(ref)) throw new OpenApiDocumentError(`Circular $ref "${ref}" at ${where}`);
      seen.add(ref);
      node = this.pointer(ref, where);
    }
    return node as T;
  }

  private definition(name: string, direction: SchemaDirection, where: string): { schema: unknown; refs: Set<string> } {
    const key = `${direction}\u0000${name}`;
    let cached = this.cache.get(key);
    if (!cached) {
      if (!Object.hasOwn(this.components, name)) throw new OpenApiDocumentError(`Broken $ref "#/components/schemas/${name}" at ${where}`);
      const refs = new Set<string>();
      cached = { schema: this.walk(this.components[name], direction, refs, [], `#/components/schemas/${name}`, 0), refs };
      this.cache.set(key, cached);
    }
    return cached;
  }

  private pointer(ref: string, where: string): unknown {
    if (!ref.startsWith("#"))
      throw new OpenApiDocumentError(`Remote $ref "${ref}" at ${where} is not fetched: bundle the document into one file first`);
    const target = resolveRef(this.document, ref);
    return target === undefined ? broken(ref, where) : target;
  }

  /**
   * `node` converted. `depth` counts the levels above it, inlined $refs included: a document within
   * its depth limit can still nest without bound through chains of inlined $refs, so the walk stops
   * at MAX_SCHEMA_DEPTH rather than at the end of the stack.
   */
  private walk(node: unknown, direction: SchemaDirection, refs: Set<string>, stack: string[], where: string, depth: number): unknown {
    if (node === null || typeof node !== "object") return node;
    if (depth >= MAX_SCHEMA_DEPTH)
      throw new OpenApiDocumentError(`A schema of ${where} nests deeper than ${MAX_SCHEMA_DEPTH} levels once its $refs are inlined`);
    if (Array.isArray(node)) return node.map((item) => this.walk(item, direction, refs, stack, where, depth + 1));
    if (!isJsonObject(node)) return node;
    if (typeof node.$ref === "string") {
      const ref = node.$ref;
      // 3.0 ignores siblings of $ref; 3.1 (2020-12) applies them, so they are kept there.
      const siblings = this.is30
        ? {}
        : this.walkObject(Object.fromEntries(Object.entries(node).filter(([k]) => k !== "$ref")), direction, refs, stack, where, depth);
      const component = COMPONENT_REF.exec(ref);
      if (component) {
        const name = decodeToken(component[1]!);
        if (name === undefined || !Object.hasOwn(this.components, name)) return broken(ref, where);
        refs.add(name);
        return { $ref: `#/$defs/${encodeToken(name)}`, ...siblings };
      }
      if (stack.includes(ref))
        throw new OpenApiDocumentError(`Circular $ref "${ref}" at ${where} (only component schemas may refer to themselves)`);
      const target = this.walk(this.pointer(ref, where), direction, refs, [...stack, ref], where, depth);
      return isJsonObject(target) ? { ...target, ...siblings } : target;
    }
    return this.walkObject(node, direction, refs, stack, where, depth);
  }

  private walkObject(
    node: Record<string, unknown>,
    direction: SchemaDirection,
    refs: Set<string>,
    stack: string[],
    where: string,
    depth: number,
  ): Record<string, unknown> {
    // A subschema is one level down; one inside a list or a map of them is two.
    const walk = (value: unknown) => this.walk(value, direction, refs, stack, where, depth + 1);
    const walkInner = (value: unknown) => this.walk(value, direction, refs, stack, where, depth + 2);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (DROPPED.has(key) || key.startsWith("x-")) continue;
      if (key === "properties" && isJsonObject(value)) {
        const properties: Record<string, unknown> = {};
        for (const [name, child] of Object.entries(value)) {
          if (
            isJsonObject(child) &&
            ((direction === "input" && child.readOnly === true) || (direction === "output" && child.writeOnly === true))
          )
            continue;
          properties[name] = walkInner(child);
        }
        out.properties = properties;
      } else if (SUBSCHEMA.has(key)) out[key] = walk(value);
      else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map(walkInner);
      else if (SUBSCHEMA_MAPS.has(key) && isJsonObject(value))
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walkInner(v)]));
      else out[key] = value;
    }
    if (isJsonObject(out.properties) && Array.isArray(out.required)) {
      const kept = (out.required as string[]).filter((name) => Object.hasOwn(out.properties as object, name));
      if (kept.length) out.required = kept;
      else delete out.required;
    }
    return this.is30 ? upgrade30(out) : out;
  }
}

function broken(ref: string, where: string): never {
  throw new OpenApiDocumentError(`Broken $ref "${ref}" at ${where}: nothing in the document has that path`);
}

/** OpenAPI 3.0 schema keywords in their 2020-12 form. */
function upgrade30(schema: Record<string, unknown>): Record<string, unknown> {
  const out = { ...schema };
  if (out.example !== undefined) {
    if (out.examples === undefined) out.examples = [out.example];
    delete out.example;
  }
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof out[flag] === "boolean") {
      if (out[flag] === true && typeof out[bound] === "number") {
        out[flag] = out[bound];
        delete out[bound];
      } else delete out[flag];
    }
  }
  if (out.nullable !== undefined) {
    const nullable = out.nullable === true;
    delete out.nullable;
    if (nullable) {
      if (typeof out.type === "string") {
        out.type = [out.type, "null"];
        if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
      } else if (out.type === undefined) {
        const { description, title, ...rest } = out;
        return {
          anyOf: [rest, { type: "null" }],
          ...(title !== undefined && { title }),
          ...(description !== undefined && { description }),
        };
      }
    }
  }
  return out;
}
