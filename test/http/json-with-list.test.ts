// jsonWithList writes a long list a slice at a time, each within the event loop's turn budget, and
// the body is the JSON of the whole object.
import { describe, expect, it } from "vitest";
import { jsonWithList } from "@/lib/http/respond";
import { countTurns } from "../support/turn-counter";

/** Read a response's body chunk by chunk, noting how many turns of the event loop (a chain of immediates) had run at each chunk. */
async function read(response: Response): Promise<{ text: string; turnsAtChunks: number[] }> {
  const counter = countTurns();
  const decoder = new TextDecoder();
  let text = "";
  const turnsAtChunks: number[] = [];
  try {
    const reader = response.body!.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += decoder.decode(chunk.value, { stream: true });
      turnsAtChunks.push(counter.turns);
    }
  } finally {
    counter.stop();
  }
  return { text, turnsAtChunks };
}

describe("jsonWithList", () => {
  it("gives the JSON of the head with the list, with the JSON headers and the status given", async () => {
    const response = jsonWithList({ source: { id: "s1", name: "Pets ✓" }, warnings: ["w"] }, "tools", [1, 2, 3], (n) => ({ n }), {
      status: 201,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(JSON.parse(await response.text())).toEqual({
      source: { id: "s1", name: "Pets ✓" },
      warnings: ["w"],
      tools: [{ n: 1 }, { n: 2 }, { n: 3 }],
    });
  });

  it("writes an empty list, and a head with no other field", async () => {
    expect(JSON.parse(await jsonWithList({}, "items", [], (x) => x).text())).toEqual({ items: [] });
    expect(JSON.parse(await jsonWithList({ a: null }, "items", [], (x) => x).text())).toEqual({ items: [], a: null });
  });

  it("refuses a head that already holds the list's key, rather than writing the key twice", () => {
    expect(() => jsonWithList({ tools: [] }, "tools", [1], (x) => x)).toThrow(TypeError);
    expect(() => jsonWithList({ tools: null }, "tools", [1], (x) => x)).toThrow(/already holds "tools"/);
    // A key JSON leaves out is no clash.
    expect(() => jsonWithList({ tools: undefined }, "tools", [1], (x) => x)).not.toThrow();
  });

  it("writes thousands of entries in several slices, the event loop turning between them", async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => i);
    const entry = (i: number) => ({
      name: `tool_${i}`,
      description: "x".repeat(200),
      schema: { type: "object", properties: { a: { type: "string" } } },
    });
    const { text, turnsAtChunks } = await read(jsonWithList({ done: true }, "tools", items, entry));
    const parsed = JSON.parse(text) as { tools: Array<{ name: string }>; done: boolean };
    expect(parsed.done).toBe(true);
    expect(parsed.tools).toHaveLength(20_000);
    expect(parsed.tools[19_999]!.name).toBe("tool_19999");
    // Slices of at most a turn's budget each: serialising 20,000 entries takes several, and
    // the event loop turns between them (the chain of immediates goes on).
    expect(turnsAtChunks.length).toBeGreaterThan(2);
    expect(turnsAtChunks.at(-1)!).toBeGreaterThan(turnsAtChunks[0]!);
  });
});
