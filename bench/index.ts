// `npm run bench [name...]`: runs every bench file in this folder (or those named) and prints its
// figures. A bench file default-exports an async function; add a new one (agui-stream.ts,
// approvals-list.ts...) and it runs here. Returning a BenchResult gets the figures printed with
// their targets and PASS/MISS; returning nothing means the bench printed its own lines (with MISS
// or SLOW for a miss). Each bench runs in its own process. A miss is reported, not an exit code:
// timings are not tests.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type Bench, type Figure, verdict } from "./support/measure";

function benchFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && entry.name !== "index.ts")
    .map((entry) => entry.name.replace(/\.ts$/, ""))
    .sort();
}

function format(figure: Figure): string {
  const digits = figure.value >= 100 ? 0 : figure.value >= 10 ? 1 : figure.value >= 1 ? 2 : 3;
  const value = `${figure.value.toFixed(digits)} ${figure.unit}`;
  const target = figure.target
    ? `  target ${[figure.target.max !== undefined && `< ${figure.target.max} ${figure.unit}`, figure.target.min !== undefined && `> ${figure.target.min} ${figure.unit}`].filter(Boolean).join(", ")}  ${verdict(figure)}`
    : "";
  return `  ${figure.label.padEnd(48)} ${value.padStart(12)}${target}${figure.note ? `  (${figure.note})` : ""}`;
}

/** A line a bench printed for a figure that missed its target (its own verdict words or ours). */
const MISSED = /\b(MISS|SLOW)\b/;

/** Run one bench in this process and print its figures (the parent counts the misses). */
async function runOne(dir: string, name: string): Promise<void> {
  const module = (await import(pathToFileURL(path.join(dir, `${name}.ts`)).href)) as { default?: Bench };
  if (typeof module.default !== "function") {
    console.error(`bench/${name}.ts has no default export; skipped`);
    return;
  }
  const started = performance.now();
  console.log(`\n== ${name}`);
  const result = await module.default();
  if (!result) {
    console.log(`  [${((performance.now() - started) / 1000).toFixed(1)} s]`);
    return;
  }
  console.log(`${result.title}  [${((performance.now() - started) / 1000).toFixed(1)} s]`);
  for (const figure of result.figures) console.log(format(figure));
}

/**
 * Run one bench in a process of its own, so that its memory figures (peak RSS) and its timings
 * owe nothing to the benches before it; its lines are passed through. Returns the lines that
 * reported a miss.
 */
function runInChild(name: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", __filename, name], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, BENCH_CHILD: "1" },
    });
    let misses = 0;
    let pending = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      process.stdout.write(chunk);
      const lines = (pending + chunk).split("\n");
      pending = lines.pop()!;
      misses += lines.filter((l) => MISSED.test(l)).length;
    });
    child.on("close", (code) => {
      if (MISSED.test(pending)) misses++;
      if (code) console.error(`bench/${name}.ts exited with code ${code}`);
      resolve(misses + (code ? 1 : 0));
    });
  });
}

async function main(): Promise<void> {
  const dir = __dirname;
  const wanted = process.argv.slice(2);
  const names = benchFiles(dir).filter((name) => wanted.length === 0 || wanted.includes(name));
  if (names.length === 0) {
    console.error(`No bench named ${wanted.join(", ")}; there are: ${benchFiles(dir).join(", ")}`);
    process.exitCode = 1;
    return;
  }
  if (process.env.BENCH_CHILD) {
    await runOne(dir, names[0]!);
    return;
  }
  // Timings swing with whatever else the machine runs; the load average says how busy it was.
  const load = os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
  console.log(
    `Node ${process.version} on ${process.platform}/${process.arch}, ${os.cpus().length} CPUs, load average ${load}; each bench in its own process`,
  );
  let misses = 0;
  for (const name of names) misses += await runInChild(name);
  console.log(misses ? `\n${misses} figure(s) missed their target (MISS or SLOW above).` : "\nEvery figure with a target met it.");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
