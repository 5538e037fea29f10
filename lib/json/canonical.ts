import { createHash } from "node:crypto";
import { DomainError } from "../errors";

/**
 * Past this nesting canonical JSON refuses a value. Everything the console accepts is far shallower
 * (arguments 64 levels, documents 128, converted schemas 256); the bound keeps the recursion here
 * and in JSON.stringify away from the end of the stack.
 */
export const CANONICAL_MAX_DEPTH = 512;

/**
 * JSON text with object keys sorted at every depth, so equal values give equal text.
 * Throws DomainError too_deep for a value nested past CANONICAL_MAX_DEPTH (or a cyclic one).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, 0));
}

function sortKeys(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth >= CANONICAL_MAX_DEPTH) throw new DomainError("too_deep", `The value is nested deeper than ${CANONICAL_MAX_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((item) => sortKeys(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v, depth + 1);
  }
  return out;
}

/** SHA-256 (hex) of the canonical JSON of `value`: the digest that binds approvals and call records. Throws what canonicalJson throws. */
export function jsonDigest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
