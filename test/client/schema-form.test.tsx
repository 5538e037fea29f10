import { renderToStaticMarkup } from "react-dom/server";
import { expect, it } from "vitest";
import { initialValue, SchemaForm } from "@/components/common/schema-form";

it("starts a form with defaults and required fields, following $refs and a choice's first variant", () => {
  const schema = {
    type: "object",
    $defs: { unit: { enum: ["m", "ft"] } },
    properties: {
      name: { type: "string" },
      unit: { $ref: "#/$defs/unit" },
      count: { type: "integer", default: 3 },
      shape: { oneOf: [{ type: "object", properties: { r: { type: "boolean" } }, required: ["r"] }, { type: "string" }] },
      note: { type: "string" },
    },
    required: ["name", "unit", "shape"],
  };
  expect(JSON.parse(JSON.stringify(initialValue(schema)))).toEqual({ name: "", unit: "m", count: 3, shape: { r: false } });
});

it("ends, at a bounded size, for a schema whose required fields refer back to it", () => {
  const names = ["__proto__", ...Array.from({ length: 29 }, (_, i) => `f${i}`)];
  const schema = { type: "object", properties: Object.fromEntries(names.map((name) => [name, { $ref: "#" }])), required: names };
  const value = initialValue(schema) as Record<string, unknown>;
  expect(JSON.stringify(value).length).toBeLessThan(20_000);
  // __proto__ is a field like any other, not the object's prototype.
  expect(Object.keys(value)).toContain("__proto__");
  // A single self-reference stops after a few levels.
  const chain = { type: "object", properties: { next: { $ref: "#" } }, required: ["next"] };
  expect(JSON.stringify(initialValue(chain))).toBe(`${'{"next":'.repeat(8)}{}${"}".repeat(8)}`);
});

it("renders a schema that contains itself, giving the field that repeats a definition above it as JSON", () => {
  const tree = {
    type: "object",
    $defs: { person: { type: "object", properties: { email: { type: "string" }, manager: { $ref: "#/$defs/person" } } } },
    properties: {
      label: { type: "string" },
      lead: { $ref: "#/$defs/person" },
      children: { type: "array", items: { $ref: "#" } },
      parent: { $ref: "#" },
    },
    required: ["label"],
  };
  const html = renderToStaticMarkup(<SchemaForm schema={tree} value={initialValue(tree)} onChange={() => {}} />);
  // The lead is a form (email, then manager as JSON); the parent is JSON at once.
  expect(html.match(/The same kind as a field above it: give it as JSON\./g)).toHaveLength(2);
  expect(html.match(/<fieldset/g)).toHaveLength(2);
  // A choice that refers back to itself ends the same way.
  const choice = { oneOf: [{ $ref: "#" }, { type: "string" }] };
  expect(renderToStaticMarkup(<SchemaForm schema={choice} value={undefined} onChange={() => {}} />)).toContain("give it as JSON");
});

it("shows a bounded number of objects however a schema's definitions fan out", () => {
  // Eight levels of definitions, each with six fields of the next: 6^8 objects written out.
  const fields = (next: string) => Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}`, { $ref: `#/$defs/l${next}` }]));
  const $defs = Object.fromEntries(
    Array.from({ length: 9 }, (_, level) => [
      `l${level}`,
      level === 8 ? { type: "string" } : { type: "object", properties: fields(String(level + 1)) },
    ]),
  );
  const schema = { $defs, $ref: "#/$defs/l0" };
  const html = renderToStaticMarkup(<SchemaForm schema={schema} value={{}} onChange={() => {}} />);
  expect(html.match(/<fieldset/g)!.length).toBeLessThanOrEqual(400);
  expect(html).toContain("Nested deeper than the form goes: give it as JSON.");
});
