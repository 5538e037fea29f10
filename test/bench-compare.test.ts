import { describe, expect, it } from "vitest";
import { type BenchFile, compareRuns, directionOf, formatChange, formatComparison } from "@/bench/support/compare";

function file(figures: BenchFile["benches"][string][number]["figures"], date = "2026-12-01T00:00:00.000Z"): BenchFile {
  return { date, machine: { loadAverage: [1.5, 1, 1] }, benches: { client: [{ title: "client store", figures }] } };
}

describe("bench --compare", () => {
  it("takes a figure's direction from its target, else from its unit", () => {
    expect(directionOf({ label: "a", value: 1, unit: "x", target: { max: 1.5 } })).toBe("lower");
    expect(directionOf({ label: "a", value: 1, unit: "x", target: { min: 0.7 } })).toBe("higher");
    expect(directionOf({ label: "a", value: 1, unit: "events/s" })).toBe("higher");
    expect(directionOf({ label: "a", value: 1, unit: "MB" })).toBe("lower");
    expect(directionOf({ label: "a", value: 1, unit: "" })).toBeUndefined();
  });

  it("prints each figure beside the old one with the change, marks what got worse, and sums it up", () => {
    const before = file([
      { label: "50,003 events", value: 40, unit: "ms", target: { max: 50 } },
      { label: "  per event", value: 0.8, unit: "µs" },
      { label: "through Next / adapter", value: 0.8, unit: "x", target: { min: 0.7 } },
      { label: "stream rate", value: 100_000, unit: "events/s" },
      { label: "tool calls", value: 1000, unit: "" },
      { label: "removed figure", value: 3, unit: "ms" },
    ]);
    const now = file(
      [
        { label: "50,003 events", value: 60, unit: "ms", target: { max: 50 } },
        { label: "  per event", value: 1.2, unit: "µs" },
        { label: "through Next / adapter", value: 0.9, unit: "x", target: { min: 0.7 } },
        { label: "stream rate", value: 104_000, unit: "events/s" },
        { label: "tool calls", value: 1000, unit: "" },
        { label: "added figure", value: 7, unit: "MB" },
      ],
      "2026-12-02T00:00:00.000Z",
    );
    expect(formatComparison(before, now, "old.json")).toEqual([
      "Compared with old.json (2026-12-01T00:00:00.000Z, load 1.50); now 2026-12-02T00:00:00.000Z, load 1.50. Changes under 10% count as the same.",
      "== client",
      "  50,003 events                                                           60 ms  was          40 ms  +20 ms +50.0%  PASS→MISS  WORSE (lower is better)",
      "    per event                                                           1.20 µs  was       0.800 µs  +0.400 µs +50.0%  WORSE (lower is better)",
      "  through Next / adapter                                                 0.900x  was         0.800x  +0.100x +12.5%  PASS→PASS  better (higher is better)",
      "  stream rate                                                  104,000 events/s  was 100,000 events/s  +4,000 events/s +4.0%  same (higher is better)",
      "  tool calls                                                              1,000  was          1,000  ±0 +0.0%",
      "  added figure                                                             7 MB  (new)",
      "  removed figure                                                              —  was 3 ms  (gone)",
      "2 figure(s) got worse: client: 50,003 events; client: 50,003 events › per event.",
    ]);
  });

  it("matches figures across reworded section titles, and a label printed twice by its occurrence", () => {
    const section = (title: string, a: number, b: number): BenchFile["benches"][string] => [
      { title, figures: [{ label: "run", value: a, unit: "ms" }] },
      { title: `${title} again`, figures: [{ label: "run", value: b, unit: "ms" }] },
    ];
    const changes = compareRuns(
      { date: "d1", benches: { client: section("old title", 10, 100) } },
      { date: "d2", benches: { client: section("new title", 10, 50) } },
    );
    expect(changes.map((c) => [c.label, c.before?.value, c.now?.value, c.verdict])).toEqual([
      ["run", 10, 10, "same"],
      ["run", 100, 50, "better"],
    ]);
  });

  it("a lower-better figure that fell is better, and a bench not run this time is neither gone nor worse", () => {
    const before: BenchFile = {
      date: "d1",
      benches: {
        client: [{ title: "t", figures: [{ label: "run", value: 100, unit: "ms" }] }],
        agui: [{ title: "a", figures: [{ label: "x", value: 1, unit: "ms" }] }],
      },
    };
    const now: BenchFile = { date: "d2", benches: { client: [{ title: "t", figures: [{ label: "run", value: 50, unit: "ms" }] }] } };
    const changes = compareRuns(before, now);
    expect(changes.map((c) => [c.label, c.verdict, c.delta, c.ratio])).toEqual([["run", "better", -50, -0.5]]);
    expect(formatChange(changes[0]!)).toBe(
      "  run                                                                     50 ms  was         100 ms  −50 ms −50.0%  better (lower is better)",
    );
    expect(formatComparison(before, now, "old.json").at(-1)).toBe("No figure got worse.");
  });
});
