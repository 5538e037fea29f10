import { expect, it } from "vitest";
import { primaryType, resolveSchema, schemaVariants } from "@/lib/json/schema-shape";

it("follows local $refs, keeps the referring node's own keywords, and stops on a loop", () => {
  const root = {
    $defs: { city: { type: "string", description: "A city" }, loop: { $ref: "#/$defs/loop" }, "a/b": { type: "integer" } },
  };
  expect(resolveSchema(root, { $ref: "#/$defs/city", description: "Where" })).toEqual({ type: "string", description: "Where" });
  expect(resolveSchema(root, { $ref: "#/$defs/a~1b" })).toEqual({ type: "integer" });
  expect(resolveSchema(root, { $ref: "#/$defs/loop" })).toEqual({ $ref: "#/$defs/loop" });
  // Not local, or not there: the node as given.
  expect(resolveSchema(root, { $ref: "https://example.com/s.json" })).toEqual({ $ref: "https://example.com/s.json" });
  expect(resolveSchema(root, { $ref: "#/$defs/none" })).toEqual({ $ref: "#/$defs/none" });
});

it("reads a choice as variants unless it only makes one value optional, and names the type a value takes", () => {
  const choice = { oneOf: [{ type: "string" }, { type: "integer" }] };
  expect(schemaVariants(choice)).toHaveLength(2);
  expect(schemaVariants({ anyOf: [{ type: "string" }, { type: "null" }] })).toBeUndefined();
  expect(schemaVariants({ anyOf: [] })).toBeUndefined();
  expect(primaryType({ anyOf: [{ type: "number" }, { type: "null" }] })).toBe("number");
  expect(primaryType({ type: ["null", "boolean"] })).toBe("boolean");
  expect(primaryType({ properties: {} })).toBe("object");
  expect(primaryType({ items: {} })).toBe("array");
  expect(primaryType({ enum: ["a"] })).toBe("string");
  expect(primaryType({})).toBeUndefined();
  // A malformed choice (a null variant) is read, not thrown on.
  expect(schemaVariants({ oneOf: [null, { type: "string" }] } as never)).toBeUndefined();
  expect(primaryType({ oneOf: [null, { type: "string" }] } as never)).toBe("string");
});
