import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_INPUT_DEPTH } from "@/lib/json/depth";
import type { Services } from "@/lib/services";
import { assertUsableSchema, unsupportedPatterns, validateAgainst } from "@/lib/tools/schema";
import { testServices } from "./support/services";

/** `{"a":{"a":…1}}` with `depth` objects, built without recursion. */
function deepObject(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe("tool arguments are bounded before anything recursive runs", () => {
  let services: Services;
  beforeAll(async () => {
    services = testServices();
    await services.registry.add({ name: "take_anything", description: "Takes any object", inputSchema: { type: "object" } }, (args) => ({
      keys: Object.keys(args),
    }));
  });
  afterAll(() => services.close());

  it("arguments nested 3,000 levels are invalid arguments (a result), not a thrown RangeError", async () => {
    const outcome = await services.executor.call("take_anything", { x: deepObject(3_000) });
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: "invalid_arguments", message: expect.stringContaining(`deeper than ${MAX_INPUT_DEPTH} levels`) },
    });
  });

  it(`arguments ${MAX_INPUT_DEPTH} levels deep still run`, async () => {
    // The arguments object is the first level.
    const outcome = await services.executor.call("take_anything", { x: deepObject(MAX_INPUT_DEPTH - 1) });
    expect(outcome).toEqual({ ok: true, value: { keys: ["x"] } });
    expect(validateAgainst({ type: "object" }, { x: deepObject(MAX_INPUT_DEPTH) })).toEqual([
      { path: "", message: `is nested deeper than ${MAX_INPUT_DEPTH} levels` },
    ]);
  });
});

describe("patterns run on a linear-time engine", () => {
  it("a catastrophic pattern answers at once on 10,000 characters", () => {
    const schema = { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } };
    validateAgainst(schema, { s: "a" }); // compile outside the timing
    const started = performance.now();
    const issues = validateAgainst(schema, { s: `${"a".repeat(10_000)}!` });
    const elapsed = performance.now() - started;
    expect(issues).toEqual([{ path: "/s", message: 'must match pattern "^(a+)+$"' }]);
    expect(elapsed).toBeLessThan(100);
    expect(validateAgainst(schema, { s: "a".repeat(10_000) })).toEqual([]);
  });

  it("two patterns never share a compiled expression", () => {
    const x = { type: "object", properties: { v: { type: "string", pattern: "^x$" } } };
    const y = { type: "object", properties: { v: { type: "string", pattern: "^y$" } } };
    expect(validateAgainst(x, { v: "x" })).toEqual([]);
    expect(validateAgainst(y, { v: "y" })).toEqual([]);
    expect(validateAgainst(y, { v: "x" })).toEqual([{ path: "/v", message: 'must match pattern "^y$"' }]);
    const keyed = { type: "object", patternProperties: { "^n_": { type: "number" }, "^s_": { type: "string" } } };
    expect(validateAgainst(keyed, { n_1: 1, s_1: "s" })).toEqual([]);
    expect(validateAgainst(keyed, { s_1: 1 })).toEqual([{ path: "/s_1", message: "must be string" }]);
  });

  it("names every pattern the engine refuses, skipping values that are data", () => {
    const schema = {
      type: "object",
      properties: {
        password: { type: "string", pattern: "^(?=.*\\d).{8,}$" },
        twice: { type: "string", pattern: "(a)\\1" },
        fine: { type: "string", pattern: "^\\d{3}-\\d{4}$" },
        nested: { type: "array", items: { type: "object", patternProperties: { "^(?!admin)": { type: "string" } } } },
        data: { type: "string", enum: ["(?=x)"], default: "(?=y)", examples: [{ pattern: "(?=z)" }] },
      },
      $defs: { Code: { type: "string", pattern: "a{1001}" } },
    };
    const found = unsupportedPatterns(schema);
    expect(found.map((p) => [p.path, p.pattern])).toEqual([
      ["/properties/password/pattern", "^(?=.*\\d).{8,}$"],
      ["/properties/twice/pattern", "(a)\\1"],
      ["/properties/nested/items/patternProperties/^(?!admin)", "^(?!admin)"],
      ["/$defs/Code/pattern", "a{1001}"],
    ]);
    expect(found[0]!.reason).toMatch(/lookahead/);
  });

  it("a tool defined with a pattern the engine refuses is refused at definition, naming where", () => {
    expect(() =>
      assertUsableSchema({ type: "object", properties: { p: { type: "string", pattern: "^(?=a)" } } }, "inputSchema", "t"),
    ).toThrow(
      expect.objectContaining({ kind: "invalid_tool_definition", message: expect.stringContaining("inputSchema/properties/p/pattern") }),
    );
  });

  it("a schema nested deeper than the limit is refused at definition rather than overflowing the stack", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 5_000; i++) schema = { type: "object", properties: { a: schema } };
    expect(() => assertUsableSchema(schema, "inputSchema", "t")).toThrow(expect.objectContaining({ kind: "invalid_tool_definition" }));
  });
});
