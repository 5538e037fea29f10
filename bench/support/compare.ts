import { type BenchResult, type Figure, formatValue, verdict } from "./measure";

/** What `npm run bench -- --json FILE` writes: every figure of every bench, by bench name. */
export interface BenchFile {
  date: string;
  machine?: { node?: string; platform?: string; cpus?: number; loadAverage?: number[] };
  benches: Record<string, BenchResult[]>;
}

/** Which way a figure improves: from its target, else from its unit; undefined when neither says. */
export type Direction = "lower" | "higher";

/** A change smaller than this share of the old value is noise on a shared machine, not a verdict. */
export const NOISE = 0.1;

const LOWER_UNITS = new Set(["ns", "µs", "us", "ms", "s", "B", "KB", "kB", "MB", "GB"]);

/** Lower is better under a `max` target, higher under a `min` one; without a target, times and sizes are lower-better and rates (…/s) higher-better. */
export function directionOf(figure: Figure): Direction | undefined {
  if (figure.target?.max !== undefined && figure.target.min === undefined) return "lower";
  if (figure.target?.min !== undefined && figure.target.max === undefined) return "higher";
  if (figure.unit.endsWith("/s")) return "higher";
  if (LOWER_UNITS.has(figure.unit)) return "lower";
  return undefined;
}

/** One figure of the new run beside the same figure of the old one. */
export interface FigureChange {
  bench: string;
  /** The figure's label, a detail's prefixed with the label of the figure it belongs to. */
  label: string;
  /** The label as the bench prints it (a detail indented under its figure). */
  shown: string;
  now?: Figure;
  before?: Figure;
  /** now - before, and that as a share of before (undefined when before is 0). */
  delta?: number;
  ratio?: number;
  direction?: Direction;
  /** "worse" or "better" past the noise threshold, "same" within it; a target flipping from PASS to MISS is always "worse". */
  verdict: "worse" | "better" | "same" | "new" | "gone" | "unknown";
}

/**
 * A key per figure that survives reordering and reworded section titles: bench and label (a
 * detail's under its parent's), with the occurrence number when one bench prints a label twice.
 */
function keyed(bench: string, results: BenchResult[]): Map<string, { label: string; figure: Figure }> {
  const out = new Map<string, { label: string; figure: Figure }>();
  for (const result of results) {
    let parent = "";
    for (const figure of result.figures) {
      const detail = figure.label.startsWith(" ");
      if (!detail) parent = figure.label;
      const label = detail ? `${parent.trim()} › ${figure.label.trim()}` : figure.label.trim();
      let key = `${bench}\u0000${label}`;
      for (let n = 2; out.has(key); n++) key = `${bench}\u0000${label}\u0000${n}`;
      out.set(key, { label, figure });
    }
  }
  return out;
}

/** Pairs every figure of `now` with the same figure of `before`, in the order of `now`; figures only in `before` come last as "gone". */
export function compareRuns(before: BenchFile, now: BenchFile): FigureChange[] {
  const changes: FigureChange[] = [];
  const benches = new Set([...Object.keys(now.benches), ...Object.keys(before.benches)]);
  for (const bench of benches) {
    const old = keyed(bench, before.benches[bench] ?? []);
    const current = keyed(bench, now.benches[bench] ?? []);
    for (const [key, { label, figure }] of current) {
      const previous = old.get(key)?.figure;
      old.delete(key);
      changes.push(change(bench, label, figure, previous));
    }
    // A bench that did not run this time (only some were named) is not "gone".
    if (!(bench in now.benches)) continue;
    for (const { label, figure } of old.values()) changes.push({ bench, label, shown: figure.label, before: figure, verdict: "gone" });
  }
  return changes;
}

function change(bench: string, label: string, now: Figure, before: Figure | undefined): FigureChange {
  if (!before) return { bench, label, shown: now.label, now, verdict: "new" };
  const direction = directionOf(now);
  const delta = now.value - before.value;
  const ratio = before.value === 0 ? undefined : delta / Math.abs(before.value);
  const base = { bench, label, shown: now.label, now, before, delta, ratio, direction };
  if (verdict(before) === "PASS" && verdict(now) === "MISS") return { ...base, verdict: "worse" };
  if (!direction) return { ...base, verdict: "unknown" };
  if (ratio === undefined ? delta === 0 : Math.abs(ratio) < NOISE) return { ...base, verdict: "same" };
  const improved = direction === "lower" ? delta < 0 : delta > 0;
  return { ...base, verdict: improved ? "better" : "worse" };
}

function signed(value: number, unit: string): string {
  return `${value > 0 ? "+" : value < 0 ? "−" : "±"}${formatValue(Math.abs(value), unit)}`;
}

const MARK: Record<FigureChange["verdict"], string> = {
  worse: "WORSE",
  better: "better",
  same: "same",
  new: "new",
  gone: "gone",
  unknown: "",
};

/** One line per figure: label, value now, value before, the change (absolute and %), and the verdict with the figure's direction. */
export function formatChange(change: FigureChange): string {
  const figure = change.now ?? change.before!;
  const label = `  ${change.shown.padEnd(60)}`;
  if (change.verdict === "new") return `${label} ${formatValue(figure.value, figure.unit).padStart(16)}  (new)`;
  if (change.verdict === "gone") return `${label} ${"—".padStart(16)}  was ${formatValue(figure.value, figure.unit)}  (gone)`;
  const now = change.now!;
  const before = change.before!;
  const percent = change.ratio === undefined ? "" : ` ${change.ratio >= 0 ? "+" : "−"}${Math.abs(change.ratio * 100).toFixed(1)}%`;
  const direction = change.direction ? ` (${change.direction} is better)` : "";
  const target = verdict(now) ? `  ${verdict(before) ?? "-"}→${verdict(now)}` : "";
  return (
    `${label} ${formatValue(now.value, now.unit).padStart(16)}  was ${formatValue(before.value, before.unit).padStart(14)}` +
    `  ${signed(change.delta!, now.unit)}${percent}${target}  ${MARK[change.verdict]}${MARK[change.verdict] ? direction : ""}`
  ).trimEnd();
}

/** The whole comparison: a header naming both runs, each bench's figures under its name, and a summary of the figures that got worse. */
export function formatComparison(before: BenchFile, now: BenchFile, beforeName: string): string[] {
  const changes = compareRuns(before, now);
  const worse = changes.filter((c) => c.verdict === "worse");
  const load = (file: BenchFile) => (file.machine?.loadAverage ? `, load ${file.machine.loadAverage[0]?.toFixed(2)}` : "");
  const lines: string[] = [];
  for (const [i, change] of changes.entries()) {
    if (change.bench !== changes[i - 1]?.bench) lines.push(`== ${change.bench}`);
    lines.push(formatChange(change));
  }
  return [
    `Compared with ${beforeName} (${before.date}${load(before)}); now ${now.date}${load(now)}. Changes under ${NOISE * 100}% count as the same.`,
    ...lines,
    worse.length
      ? `${worse.length} figure(s) got worse: ${worse.map((c) => `${c.bench}: ${c.label}`).join("; ")}.`
      : "No figure got worse.",
  ];
}
