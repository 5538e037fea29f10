import { describe, expect, it } from "vitest";
import { schemaProblems, withoutPatterns } from "@/lib/client/schema-problems";

// The argument check of the forms that call tools: interpreted (no code generation, which the
// pages' CSP forbids), one line per failure with its path, patterns left to the server.

const refund = {
  type: "object",
  required: ["orderId", "amount"],
  additionalProperties: false,
  properties: {
    orderId: { type: "string", minLength: 1 },
    amount: { type: "number", minimum: 1 },
    tags: { type: "array", items: { type: "string" } },
  },
};

describe("schemaProblems", () => {
  it("is empty for valid arguments", () => {
    expect(schemaProblems(refund, { orderId: "1234", amount: 20, tags: ["a"] })).toEqual([]);
  });

  it("names each failure by its path, not the objects around it", () => {
    expect(schemaProblems(refund, { orderId: "", tags: [1], extra: true }).sort()).toEqual(
      [
        "/amount is required",
        "/orderId String is too short (0 < 1).",
        '/tags/0 Instance type "number" is invalid. Expected "string".',
        "/extra is not allowed",
      ].sort(),
    );
  });

  it("says a root that is not an object", () => {
    expect(schemaProblems(refund, 3)).toEqual(['/ Instance type "number" is invalid. Expected "object".']);
  });

  it("never runs a tool's pattern: one that backtracks for ever answers at once", () => {
    const schema = { type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } } };
    const started = performance.now();
    expect(schemaProblems(schema, { name: `${"a".repeat(40)}!` })).toEqual([]);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("answers no problem for a schema it cannot read, rather than blocking the form", () => {
    expect(schemaProblems({ $ref: "#/nowhere" }, {})).toEqual([]);
  });
});

describe("withoutPatterns", () => {
  it("drops pattern keywords and patternProperties with their additionalProperties, and keeps literal data", () => {
    const schema = {
      type: "object",
      properties: { pattern: { type: "string", pattern: "x+" } },
      patternProperties: { "^a": { type: "number" } },
      additionalProperties: false,
      required: ["pattern"],
      examples: [{ pattern: "kept" }],
    };
    expect(withoutPatterns(schema)).toEqual({
      type: "object",
      properties: { pattern: { type: "string" } },
      required: ["pattern"],
      examples: [{ pattern: "kept" }],
    });
  });
});
