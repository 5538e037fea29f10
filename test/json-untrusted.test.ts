import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseUntrusted } from "@/lib/json/untrusted";

describe("parsing a value from outside", () => {
  const Body = z.object({ name: z.string().min(1).max(10), tags: z.array(z.string()).max(3).optional() }).strict();

  it("fails, without throwing, on an object with a `length` where a bounded string or array is expected", () => {
    // zod runs the length checks on it and the comparison throws a TypeError out of safeParse.
    const hostile = JSON.parse('{"length":{"toString":1}}') as unknown;
    expect(() => Body.safeParse({ name: hostile })).toThrow(TypeError);
    expect(parseUntrusted(Body, { name: hostile })).toMatchObject({ success: false });
    expect(parseUntrusted(Body, { name: "ok", tags: hostile })).toMatchObject({ success: false });
  });

  it("answers as safeParse otherwise", () => {
    expect(parseUntrusted(Body, { name: "ok" })).toEqual({ success: true, data: { name: "ok" } });
    const failed = parseUntrusted(Body, { name: "" });
    expect(failed.success).toBe(false);
    expect(!failed.success && failed.issues[0]?.path).toEqual(["name"]);
  });
});
