// What a JSON Schema node describes, read the way the console's forms and examples read it: local
// `$ref`s followed, `anyOf` / `oneOf` as a choice of variants (unless all but one of them is null),
// and the one type a value of it takes. Shared by the schema form (components/common/schema-form.tsx)
// and the A2A skills' call examples (lib/integrations/a2a/agent-skills.ts).
import { resolveRef } from "./pointer";

export type SchemaNode = Record<string, unknown>;

/** Local `$ref`s followed at most this deep (a schema may refer to itself). */
const MAX_REF_DEPTH = 20;

/** `schema` with its local `$ref` resolved against `root` (its own keywords kept beside the target's); as given when there is none or it does not resolve. */
export function resolveSchema(root: SchemaNode, schema: SchemaNode, seen = 0): SchemaNode {
  const ref = schema.$ref;
  if (typeof ref !== "string" || seen > MAX_REF_DEPTH) return schema;
  const target = resolveRef(root, ref);
  if (!isSchemaNode(target)) return schema;
  const { $ref: _ref, ...rest } = schema;
  return resolveSchema(root, { ...target, ...rest }, seen + 1);
}

/** The variants of a choice (`oneOf`, else `anyOf`); undefined when there is none or it is only an optional value (`anyOf: [X, {type: "null"}]`). */
export function schemaVariants(schema: SchemaNode): SchemaNode[] | undefined {
  const list = variantList(schema);
  if (!list?.length) return undefined;
  if (list.filter((variant) => variant.type !== "null").length === 1) return undefined;
  return list;
}

/** The type a value of `schema` takes ("null" left out of a list of types), guessed from its keywords when it names none. */
export function primaryType(schema: SchemaNode): string | undefined {
  const nonNull = variantList(schema)?.filter((variant) => variant.type !== "null");
  if (nonNull?.length === 1) return primaryType(nonNull[0]!);
  if (typeof schema.type === "string") return schema.type;
  if (Array.isArray(schema.type)) return (schema.type as unknown[]).find((t): t is string => typeof t === "string" && t !== "null");
  if (schema.properties) return "object";
  if (schema.items) return "array";
  if (Array.isArray(schema.enum)) return "string";
  return undefined;
}

/** The nodes of `oneOf`, else `anyOf` (anything else in the list left out); undefined when neither is a list. */
function variantList(schema: SchemaNode): SchemaNode[] | undefined {
  const list = schema.oneOf ?? schema.anyOf;
  return Array.isArray(list) ? list.filter(isSchemaNode) : undefined;
}

export function isSchemaNode(value: unknown): value is SchemaNode {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
