import { describe, expect, it } from "vitest";
import { newCallId, newToolCallId } from "@/lib/execution";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newCallId", () => {
  it("is a version 7 UUID carrying the time it was made", () => {
    const before = Date.now();
    const id = newCallId();
    const after = Date.now();
    expect(id).toMatch(UUID_V7);
    const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });
});

describe("newToolCallId", () => {
  it('is "call_", the time it was made in 12 hex digits and 16 random ones: 33 characters, within OpenAI\'s 40', () => {
    const before = Date.now();
    const id = newToolCallId();
    const after = Date.now();
    expect(id).toMatch(/^call_[0-9a-f]{28}$/);
    expect(id.length).toBeLessThanOrEqual(40);
    const ms = parseInt(id.slice(5, 17), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });
});

describe.each([
  ["newCallId", newCallId],
  ["newToolCallId", newToolCallId],
])("%s", (_, make) => {
  it("sorts ids of later milliseconds after earlier ones, and never repeats", async () => {
    const first = Array.from({ length: 1000 }, make);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = Array.from({ length: 1000 }, make);
    expect(new Set([...first, ...second]).size).toBe(2000);
    const lastOfFirst = [...first].sort().at(-1)!;
    expect(second.every((id) => id > lastOfFirst)).toBe(true);
  });
});
