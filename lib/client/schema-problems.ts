import { Validator, type OutputUnit, type Schema } from "@cfworker/json-schema";

/**
 * Problems of `value` against a tool's JSON Schema, as "path message" lines (empty when valid), for
 * forms that check arguments as they are typed. The console's pages run under a CSP without
 * 'unsafe-eval', so a validator that compiles schemas to code (ajv) cannot run here; this one
 * interprets them. Patterns are left out: a tool's pattern could backtrack for seconds in the
 * browser's regex engine, and the console checks them with a linear engine when the call is made.
 * The check is a help to the person typing; the server's check is the one that counts.
 */
export function schemaProblems(schema: Record<string, unknown>, value: unknown): string[] {
  let errors: OutputUnit[];
  try {
    errors = validatorFor(schema).validate(value).errors;
  } catch {
    // A schema it cannot follow (an unresolved $ref...): no help, rather than a broken form.
    return [];
  }
  return errors.filter((unit) => !AGGREGATES.has(unit.keyword)).map(describe);
}

/** Keywords whose errors only say that something under them failed: the failures below are named. */
const AGGREGATES = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "prefixItems",
  "contains",
  "allOf",
  "$ref",
  "$dynamicRef",
  "dependentSchemas",
  "unevaluatedProperties",
  "unevaluatedItems",
  "then",
  "else",
]);

function describe(unit: OutputUnit): string {
  const path = unit.instanceLocation.replace(/^#/, "") || "/";
  if (unit.keyword === "required") {
    const property = /"([^"]*)"/.exec(unit.error)?.[1];
    return property === undefined ? `${path} ${unit.error}` : `${path === "/" ? "" : path}/${property} is required`;
  }
  if (unit.keyword === "false") return `${path} is not allowed`;
  return `${path} ${unit.error}`;
}

// One validator per schema object: forms check on every keystroke with the same schema.
const validators = new WeakMap<object, Validator>();

function validatorFor(schema: Record<string, unknown>): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(withoutPatterns(schema) as Schema, "2020-12", false);
    validators.set(schema, validator);
  }
  return validator;
}

/**
 * A copy of `schema` without regular expressions: `pattern` is dropped, and so is
 * `patternProperties` with the `additionalProperties` beside it (which depends on what the
 * patterns match). Bounded by the schema's own size (tool schemas are depth-checked on import).
 */
export function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  if (typeof schema !== "object" || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  const hasPatternProperties = "patternProperties" in schema;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "pattern" && typeof value === "string") continue;
    if (key === "patternProperties" || (hasPatternProperties && key === "additionalProperties")) continue;
    // Literal data (const, enum, examples, default) is kept as it is: a member named "pattern" there is not a keyword.
    copy[key] = LITERALS.has(key) ? value : withoutPatterns(value);
  }
  return copy;
}

const LITERALS = new Set(["const", "enum", "examples", "default"]);
