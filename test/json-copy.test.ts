import { expect, it } from "vitest";
import { copyPlain } from "@/lib/json/copy";

it("copies plain data deeply, and any other object as structuredClone does", () => {
  const source = {
    a: 1,
    s: "x",
    n: null,
    list: [1, { b: [true] }],
    at: new Date(5),
    bytes: new Uint8Array([1, 2]),
    nested: { deep: { x: 1 } },
  };
  const copy = copyPlain(source);
  expect(copy).toEqual(source);
  expect(copy.list[1]).not.toBe(source.list[1]);
  expect(copy.nested.deep).not.toBe(source.nested.deep);
  expect(copy.at).toBeInstanceOf(Date);
  expect(copy.at).not.toBe(source.at);
  expect(copy.bytes).toBeInstanceOf(Uint8Array);
  expect(copy.bytes).not.toBe(source.bytes);
  (copy.nested.deep as { x: number }).x = 2;
  expect(source.nested.deep.x).toBe(1);
  expect(copyPlain("text")).toBe("text");
  expect(copyPlain([])).toEqual([]);
});
