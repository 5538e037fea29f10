import { describe, expect, it } from "vitest";
import { JsonPatchError, SharedPatcher } from "@/lib/client/json-patch";

function patch(document: unknown, operations: unknown[]): unknown {
  return new SharedPatcher().apply(document, operations);
}

describe("SharedPatcher applies RFC 6902 operations", () => {
  it("add, remove, replace, move, copy and test, with escaped pointers and array ends", () => {
    const doc = { "a/b": 1, "c~d": [1, 2], list: ["x", "z"], nested: { keep: true } };
    const result = patch(doc, [
      { op: "add", path: "/list/1", value: "y" },
      { op: "add", path: "/list/-", value: "end" },
      { op: "replace", path: "/a~1b", value: 2 },
      { op: "remove", path: "/c~0d/0" },
      { op: "copy", from: "/nested", path: "/copied" },
      { op: "move", from: "/copied/keep", path: "/moved" },
      { op: "test", path: "/list", value: ["x", "y", "z", "end"] },
    ]);
    expect(result).toEqual({ "a/b": 2, "c~d": [2], list: ["x", "y", "z", "end"], nested: { keep: true }, copied: {}, moved: true });
    expect(patch({ old: 1 }, [{ op: "replace", path: "", value: [1] }])).toEqual([1]);
  });

  it.each([
    [{ op: "replace", path: "/missing", value: 1 }, "/missing does not exist"],
    [{ op: "add", path: "/list/5", value: 1 }, "/list/5 does not exist"],
    [{ op: "add", path: "/list/01", value: 1 }, "/list/01 does not exist"],
    [{ op: "remove", path: "/list/2" }, "/list/2 does not exist"],
    [{ op: "test", path: "/list", value: ["other"] }, "test failed at /list"],
    [{ op: "move", from: "/obj", path: "/obj/inner" }, "inside itself"],
    [{ op: "add", path: "/list/0/x", value: 1 }, "not an object or array"],
    [{ op: "add", path: "list", value: 1 }, "is not a JSON pointer"],
    [{ op: "replace", path: "/list" }, "needs a value"],
    [{ op: "copy", path: "/x" }, "needs a from"],
    [{ op: "frobnicate", path: "/x" }, "unknown op"],
    [{ path: "/x" }, "needs an op and a path"],
  ])("refuses %j: %s", (operation, message) => {
    const doc = { list: ["a", "b"], obj: { inner: 1 } };
    expect(() => patch(doc, [operation])).toThrow(JsonPatchError);
    expect(() => patch(doc, [operation])).toThrow(message);
    expect(doc).toEqual({ list: ["a", "b"], obj: { inner: 1 } });
  });
});

describe("SharedPatcher treats keys as data", () => {
  it("a __proto__ key is an own property of the state, never its prototype, and pollutes nothing", () => {
    const doc = patch({}, [
      { op: "add", path: "/__proto__", value: { polluted: true } },
      { op: "add", path: "/__proto__/inner", value: 1 },
    ]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.hasOwn(doc, "__proto__")).toBe(true);
    expect(JSON.stringify(doc)).toBe('{"__proto__":{"polluted":true,"inner":1}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => patch({}, [{ op: "add", path: "/constructor/prototype/polluted", value: 1 }])).toThrow("does not exist");
    expect(() => patch({}, [{ op: "replace", path: "/toString", value: 1 }])).toThrow("/toString does not exist");
  });
});

describe("SharedPatcher shares what a patch does not touch", () => {
  it("copies only the containers on the path; the document before stays as it was", () => {
    const doc = { steps: [{ status: "pending" }, { status: "pending" }], other: { big: [1, 2, 3] } };
    const next = patch(doc, [{ op: "replace", path: "/steps/0/status", value: "done" }]) as typeof doc;
    expect(next.steps[0]).toEqual({ status: "done" });
    expect(doc.steps[0]).toEqual({ status: "pending" });
    expect(next.other).toBe(doc.other);
    expect(next.steps[1]).toBe(doc.steps[1]);
  });

  it("changes its own unpublished containers in place, and copies them again once published", () => {
    const patcher = new SharedPatcher();
    const first = patcher.apply({ log: [] }, [{ op: "add", path: "/log/-", value: 1 }]) as { log: number[] };
    const second = patcher.apply(first, [{ op: "add", path: "/log/-", value: 2 }]) as { log: number[] };
    expect(second).toBe(first);
    expect(second.log).toEqual([1, 2]);
    patcher.publish();
    const third = patcher.apply(second, [{ op: "add", path: "/log/-", value: 3 }]) as { log: number[] };
    expect(third).not.toBe(second);
    expect(second.log).toEqual([1, 2]);
    expect(third.log).toEqual([1, 2, 3]);
  });

  it("a patch that fails halfway leaves even its unpublished containers as they were", () => {
    const patcher = new SharedPatcher();
    const doc = patcher.apply({ n: 1, log: [] }, [{ op: "add", path: "/log/-", value: "a" }]);
    expect(() =>
      patcher.apply(doc, [
        { op: "replace", path: "/n", value: 2 },
        { op: "add", path: "/log/-", value: "b" },
        { op: "remove", path: "/missing" },
      ]),
    ).toThrow("/missing does not exist");
    expect(doc).toEqual({ n: 1, log: ["a"] });
    expect(() => patcher.apply(doc, [{ op: "move", from: "/n", path: "/log/9" }])).toThrow("/log/9 does not exist");
    expect(doc).toEqual({ n: 1, log: ["a"] });
  });

  it("a copied subtree is not shared with its source, so later in-place changes touch one place", () => {
    const patcher = new SharedPatcher();
    let doc = patcher.apply({ a: { items: [] } }, [{ op: "add", path: "/a/items/-", value: 1 }]);
    doc = patcher.apply(doc, [{ op: "copy", from: "/a", path: "/b" }]);
    doc = patcher.apply(doc, [{ op: "add", path: "/a/items/-", value: 2 }]);
    expect(doc).toEqual({ a: { items: [1, 2] }, b: { items: [1] } });
  });
});
