import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** One measured figure; with a target, the report says PASS or MISS. */
export interface Figure {
  /** What was measured; a label starting with spaces is a detail of the figure above it. */
  label: string;
  value: number;
  /** "ms", "µs", "MB", "events/s", "x" (a ratio), "" (a count)... */
  unit: string;
  /** The figure must stay at or below `max` (or at or above `min`) to pass. */
  target?: { max?: number; min?: number };
  note?: string;
}

export interface BenchResult {
  title: string;
  figures: Figure[];
  /** Why the bench measured nothing (a missing build, say). */
  skipped?: string;
}

/** A bench file's default export: its figures, in one or more sections. */
export type Bench = () => Promise<BenchResult | BenchResult[]>;

/** A figure's value with its unit: digits by size, thousands separated ("1,062,732 events/s", "1.41x", "0.322 ms"). */
export function formatValue(value: number, unit: string): string {
  const digits = Number.isInteger(value) || Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  const text = value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit === "x" ? `${text}x` : unit ? `${text} ${unit}` : text;
}

/** The one line format of every bench: label, value, and the target with its verdict when there is one. */
export function formatFigure(figure: Figure): string {
  const target = figure.target
    ? `  target ${[figure.target.max !== undefined && `≤ ${formatValue(figure.target.max, figure.unit)}`, figure.target.min !== undefined && `≥ ${formatValue(figure.target.min, figure.unit)}`].filter(Boolean).join(", ")}  ${verdict(figure)}`
    : "";
  return `  ${figure.label.padEnd(60)} ${formatValue(figure.value, figure.unit).padStart(18)}${target}${figure.note ? `  (${figure.note})` : ""}`;
}

/** The median of `samples` (which it sorts in place). */
export function median(samples: number[]): number {
  if (samples.length === 0) return NaN;
  samples.sort((a, b) => a - b);
  const mid = samples.length >> 1;
  return samples.length % 2 ? samples[mid]! : (samples[mid - 1]! + samples[mid]!) / 2;
}

/** The value at quantile `q` (0..1) of sorted samples. */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * Time `fn` `iterations` times, one sample per call, after `warmup` untimed calls.
 * Returns each call's duration in microseconds.
 */
export async function sampleMicros(iterations: number, fn: (i: number) => unknown, warmup = Math.min(1000, iterations)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const samples = new Array<number>(iterations);
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  return samples;
}

/** Whether a figure meets its target, bounds included (undefined when it has none). */
export function verdict(figure: Figure): "PASS" | "MISS" | undefined {
  if (!figure.target) return undefined;
  const { max, min } = figure.target;
  return (max === undefined || figure.value <= max) && (min === undefined || figure.value >= min) ? "PASS" : "MISS";
}

/** A temporary directory for a bench's database, removed when the process exits. */
export function benchDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-"));
  process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
