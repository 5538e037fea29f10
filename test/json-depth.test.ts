import { describe, expect, it } from "vitest";
import { canonicalJson, jsonDigest } from "@/lib/json/canonical";
import { JsonDepthCounter, jsonTextDepthExceeds, valueDepthExceeds, yamlDepthBoundExceeds } from "@/lib/json/depth";
import { parse as parseYaml } from "yaml";

/** `[[[…]]]` nested `depth` times, as text. */
const deepArrayText = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

/** `{"a":{"a":…{}}}` nested `depth` times, as a value, built without recursion. */
function deepObject(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe("JSON text depth, before JSON.parse", () => {
  it("counts brackets outside strings only, and refuses one level past the limit", () => {
    expect(jsonTextDepthExceeds(deepArrayText(64), 64)).toBe(false);
    expect(jsonTextDepthExceeds(deepArrayText(65), 64)).toBe(true);
    expect(jsonTextDepthExceeds(JSON.stringify({ s: "[[[[[[[[[[{{{{{{{{" }), 3)).toBe(false);
    // An escaped quote does not end the string, so the brackets after it are still inside it.
    expect(jsonTextDepthExceeds(JSON.stringify({ s: 'x\\"[[[[[[' }), 2)).toBe(false);
    expect(jsonTextDepthExceeds(JSON.stringify(["\\", [[["x"]]]]), 3)).toBe(true);
    expect(jsonTextDepthExceeds('"just a string"', 0)).toBe(false);
  });

  it("gives the same answer fed in pieces, split anywhere (inside a string, after a backslash)", () => {
    const texts = [
      JSON.stringify({ s: 'x\\"[[[[[[', t: [[["y"]]] }),
      JSON.stringify(["\\", [[["x"]]]]),
      JSON.stringify({ a: "\\\\", b: [{ c: ['\\"]]'] }] }),
      deepArrayText(5),
    ];
    for (const text of texts)
      for (const limit of [2, 3, 4, 5])
        for (let cut = 0; cut <= text.length; cut++)
          for (let second = cut; second <= text.length; second++) {
            const counter = new JsonDepthCounter(limit);
            counter.feed(text.slice(0, cut));
            counter.feed(text.slice(cut, second));
            counter.feed(text.slice(second));
            expect(counter.exceeded, `${text} cut at ${cut} and ${second}, limit ${limit}`).toBe(jsonTextDepthExceeds(text, limit));
          }
  });

  it("stops early on a megabyte of brackets", () => {
    const started = performance.now();
    expect(jsonTextDepthExceeds("[".repeat(1_000_000), 64)).toBe(true);
    expect(performance.now() - started).toBeLessThan(50);
  });
});

describe("YAML depth bound, before the YAML parser", () => {
  it("is never below the real depth: block, compact and flow nesting", () => {
    const block = Array.from({ length: 40 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n") + " 1";
    const compact = "- ".repeat(40) + "x";
    const flow = "a: " + "[".repeat(40) + "]".repeat(40);
    for (const text of [block, compact, flow]) {
      expect(parseYaml(text)).toBeDefined();
      expect(yamlDepthBoundExceeds(text, 39)).toBe(true);
    }
    expect(yamlDepthBoundExceeds("openapi: 3.1.0\ninfo:\n  title: t\n  version: '1'\n", 8)).toBe(false);
  });

  it("is not fooled by an apostrophe, a quoted bracket or a comment", () => {
    expect(yamlDepthBoundExceeds("title: don't\nx: [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]", 10)).toBe(true);
    expect(yamlDepthBoundExceeds("x: '[[[[[[[[[[[[[[[['\n# [[[[[[[[[[[[[[[[[[\n", 5)).toBe(false);
  });
});

describe("depth of a parsed value, without recursion", () => {
  it("counts containers and refuses one level past the limit", () => {
    expect(valueDepthExceeds(deepObject(64), 64)).toBe(false);
    expect(valueDepthExceeds(deepObject(65), 64)).toBe(true);
    expect(valueDepthExceeds(JSON.parse(deepArrayText(65)), 64)).toBe(true);
    expect(valueDepthExceeds("text", 0)).toBe(false);
    expect(valueDepthExceeds(deepObject(100_000), 64)).toBe(true);
  });

  it("counts a value one level deep (objects, arrays, inherited fields) as one level", () => {
    for (const flat of [{}, [], { q: "x", n: 1, none: null }, [1, "a", null], Object.create({ inherited: "x" }) as object]) {
      expect(valueDepthExceeds(flat, 1)).toBe(false);
      expect(valueDepthExceeds(flat, 0)).toBe(true);
    }
    expect(valueDepthExceeds({ q: "x", inner: {} }, 1)).toBe(true);
    expect(valueDepthExceeds([1, []], 1)).toBe(true);
    // An inherited object is not walked (the walk reads own fields): the value stays one level deep.
    expect(valueDepthExceeds(Object.create({ inherited: { deep: {} } }) as object, 1)).toBe(false);
  });

  it("ends on a cycle or a shared subtree instead of walking it forever", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(valueDepthExceeds(cyclic, 64)).toBe(true);
    // 60 levels, each holding the next twice: 2^60 paths, 60 distinct objects.
    let shared: Record<string, unknown> = {};
    for (let i = 0; i < 60; i++) shared = { left: shared, right: shared };
    const started = performance.now();
    expect(valueDepthExceeds(shared, 64)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });
});

describe("canonical JSON and its digest", () => {
  it("refuses a value nested too deep with a clear DomainError instead of a RangeError", () => {
    const deep = deepObject(3_000);
    expect(() => jsonDigest(deep)).toThrow(expect.objectContaining({ kind: "too_deep" }));
    expect(() => canonicalJson(JSON.parse(deepArrayText(10_000)))).toThrow(expect.objectContaining({ kind: "too_deep" }));
  });

  it("still sorts keys at every depth", () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: undefined, z: null })).toBe('{"b":[{"c":2,"d":1}],"z":null}');
  });
});
