import { describe, expect, it } from "vitest";
import { canonicalJson, jsonDigest } from "@/lib/json/canonical";

/** Canonical text as the console first wrote it: sorted copies built key by key, given to JSON.stringify. */
function byCopies(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map(sorted);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort())
      if ((v as Record<string, unknown>)[key] !== undefined) out[key] = sorted((v as Record<string, unknown>)[key]);
    return out;
  };
  return JSON.stringify(sorted(value));
}

/** A reproducible stream of JSON-like values: keys that look like array indices, escapes, holes, NaN, -0, undefined. */
function* values(count: number): Generator<unknown> {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const keys = ["a", "B", "é", "0", "01", "2", "10", "-1", "1.5", "4294967294", "4294967295", "x y", '"q"', "\u2028", ""];
  const leaf = () => [null, 7, -0, 0.25, 1e21, NaN, Infinity, true, false, 'a"\\\n', "ü\u0000", undefined][Math.floor(next() * 12)];
  const make = (depth: number): unknown => {
    const r = next();
    if (depth > 3 || r < 0.3) return leaf();
    if (r < 0.55) return Array.from({ length: Math.floor(next() * 4) }, () => make(depth + 1));
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 6); i > 0; i--) object[keys[Math.floor(next() * keys.length)]!] = make(depth + 1);
    return object;
  };
  for (let i = 0; i < count; i++) yield make(0);
}

describe("canonical JSON", () => {
  it("writes the text the sorted copies gave, so stored digests keep matching", () => {
    for (const value of values(20_000)) expect(canonicalJson(value)).toBe(byCopies(value));
    const odd = { f: () => 1, s: Symbol("s"), list: [() => 1, Symbol("t"), undefined, new Array(2), 3], when: new Date(0) };
    expect(canonicalJson(odd)).toBe(byCopies(odd));
  });

  it("lists index-like keys first, in numeric order, then the others sorted", () => {
    expect(canonicalJson({ b: 1, "10": 2, a: 3, "9": 4, "01": 5 })).toBe('{"9":4,"10":2,"01":5,"a":3,"b":1}');
  });

  it("keeps a digest made before the rewrite", () => {
    const value = { b: 1, a: [1, "x", null, { "10": true, "9": false, z: -0.5 }], é: "ü" };
    expect(jsonDigest(value)).toBe("0ea6dcfd341858c1b3eff2523a6c9616b155bdd8b60d9c1a9f4433093c601519");
  });

  it("keeps a __proto__ key, so arguments that differ only there differ in digest", () => {
    const withProto = JSON.parse('{"__proto__": {"admin": true}, "a": 1}') as unknown;
    expect(canonicalJson(withProto)).toBe('{"__proto__":{"admin":true},"a":1}');
    expect(jsonDigest(withProto)).not.toBe(jsonDigest({ a: 1 }));
  });
});
