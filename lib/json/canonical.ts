import { hash } from "node:crypto";
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
 *
 * Written out directly rather than by building sorted copies for JSON.stringify: a copy built key
 * by key gets a new object map for each set of keys (the keys are the caller's), and this runs on
 * every call the executor records. The text is the one those copies gave (digests stored with
 * approvals and call records must not change), with one exception: a key named "__proto__" is
 * kept, where assigning it to the copy had dropped it, so two argument sets that differ only there
 * no longer share a digest.
 */
export function canonicalJson(value: unknown): string {
  return canonicalText(value, 0) as string;
}

/** The canonical text of `value`, or undefined where JSON.stringify leaves a value out (undefined, a function, a symbol). */
function canonicalText(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "object":
      break;
    default:
      return JSON.stringify(value);
  }
  if (value === null) return "null";
  if (depth >= CANONICAL_MAX_DEPTH) throw new DomainError("too_deep", `The value is nested deeper than ${CANONICAL_MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i++) text += `${i ? "," : ""}${canonicalText(value[i], depth + 1) ?? "null"}`;
    return `${text}]`;
  }
  let text = "{";
  for (const key of sortedKeys(value)) {
    const item = canonicalText((value as Record<string, unknown>)[key], depth + 1);
    if (item === undefined) continue;
    if (text.length > 1) text += ",";
    text += JSON.stringify(key) + ":" + item;
  }
  return text + "}";
}

/** 2^32 - 1: keys below it that read as integers are array indices, which objects list first. */
const MAX_INDEX = 4294967295;

/**
 * An object's keys in the order canonical text has always listed them: sorted, with the keys that
 * are array indices ("0", "7", "12") first in numeric order, as JSON.stringify lists any object's.
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value).sort();
  const indices: string[] = [];
  const names: string[] = [];
  for (const key of keys) (isIndex(key) ? indices : names).push(key);
  return indices.length ? [...indices.sort((a, b) => Number(a) - Number(b)), ...names] : keys;
}

function isIndex(key: string): boolean {
  return (key === "0" || /^[1-9]\d{0,9}$/.test(key)) && Number(key) < MAX_INDEX;
}

/** SHA-256 (hex) of the canonical JSON of `value`: the digest that binds approvals and call records. Throws what canonicalJson throws. */
export function jsonDigest(value: unknown): string {
  return hash("sha256", canonicalJson(value), "hex");
}

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
