import { describe, expect, it } from "vitest";
import { decodeToken, encodeToken, refTokens, resolveRef } from "@/lib/json/pointer";

describe("JSON Pointer in $ref", () => {
  const root = {
    $defs: { "a/b": { type: "string" }, "m~n": { type: "number" }, "with space": { type: "boolean" }, "": { const: 1 } },
    list: [{ x: 1 }],
  };

  it("decodes percent-escapes, then ~1 and ~0, in that order", () => {
    expect(decodeToken("a~1b")).toBe("a/b");
    expect(decodeToken("m~0n")).toBe("m~n");
    expect(decodeToken("with%20space")).toBe("with space");
    // %7E1 is a literal "~1" after percent-decoding, which then means "/".
    expect(decodeToken("%7E1")).toBe("/");
    expect(decodeToken("~01")).toBe("~1");
    expect(encodeToken("a/b~c")).toBe("a~1b~0c");
  });

  it("resolves local refs through own properties only", () => {
    expect(resolveRef(root, "#/$defs/a~1b")).toEqual({ type: "string" });
    expect(resolveRef(root, "#/$defs/m~0n")).toEqual({ type: "number" });
    expect(resolveRef(root, "#/$defs/with%20space")).toEqual({ type: "boolean" });
    expect(resolveRef(root, "#/$defs/")).toEqual({ const: 1 });
    expect(resolveRef(root, "#/list/0/x")).toBe(1);
    expect(resolveRef(root, "#")).toBe(root);
    expect(resolveRef(root, "#/$defs/__proto__")).toBeUndefined();
    expect(resolveRef(root, "#/$defs/missing")).toBeUndefined();
  });

  it("a malformed percent-encoding or a remote ref resolves to nothing instead of throwing", () => {
    expect(decodeToken("%E0")).toBeUndefined();
    expect(refTokens("#/%E0")).toBeUndefined();
    expect(resolveRef(root, "#/%E0")).toBeUndefined();
    expect(resolveRef(root, "https://example.test/schema.json#/a")).toBeUndefined();
    expect(resolveRef(root, "a/b")).toBeUndefined();
  });
});
