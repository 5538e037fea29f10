// `npm run bench [name...] [-- --json FILE]`: runs every bench file in this folder (or those named),
// each in its own process, and prints its figures in one format, with their targets and PASS or
// MISS. A bench file default-exports an async function returning its figures (BenchResult); add a
// new one and it runs here. `--json FILE` also writes every figure to FILE, to compare runs. A
// miss is reported, not an exit code: timings are not tests.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type Bench, type BenchResult, formatFigure, verdict } from "./support/measure";

function benchFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && entry.name !== "index.ts")
    .map((entry) => entry.name.replace(/\.ts$/, ""))
    .sort();
}

/** Run one bench in this process, print its figures, and write them to `resultFile` for the parent. */
async function runOne(dir: string, name: string, resultFile: string): Promise<void> {
  const module = (await import(pathToFileURL(path.join(dir, `${name}.ts`)).href)) as { default?: Bench };
  if (typeof module.default !== "function") throw new Error(`bench/${name}.ts has no default export`);
  const started = performance.now();
  const returned = await module.default();
  const results = Array.isArray(returned) ? returned : [returned];
  for (const result of results) {
    console.log(`${result.title}`);
    if (result.skipped) console.log(`  skipped: ${result.skipped}`);
    for (const figure of result.figures) console.log(formatFigure(figure));
  }
  console.log(`  [${((performance.now() - started) / 1000).toFixed(1)} s]`);
  fs.writeFileSync(resultFile, JSON.stringify(results));
}

/**
 * Run one bench in a process of its own, so that its memory figures (peak RSS) and its timings
 * owe nothing to the benches before it; its lines are passed through. Resolves with its figures.
 */
function runInChild(name: string, resultFile: string): Promise<BenchResult[]> {
  return new Promise((resolve) => {
    console.log(`\n== ${name}`);
    const child = spawn(process.execPath, ["--import", "tsx", __filename, name], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, BENCH_CHILD: "1", BENCH_RESULT_FILE: resultFile },
    });
    child.on("close", (code) => {
      if (code) {
        console.error(`bench/${name}.ts exited with code ${code}`);
        return resolve([{ title: name, figures: [], skipped: `exited with code ${code}` }]);
      }
      resolve(JSON.parse(fs.readFileSync(resultFile, "utf8")) as BenchResult[]);
    });
  });
}

async function main(): Promise<void> {
  const dir = __dirname;
  const args = process.argv.slice(2);
  const jsonAt = args.indexOf("--json");
  const jsonFile = jsonAt === -1 ? undefined : args[jsonAt + 1];
  if (jsonAt !== -1 && !jsonFile) throw new Error("--json needs a file name: npm run bench -- --json bench.json");
  const wanted = args.filter((arg, i) => arg !== "--" && (jsonAt === -1 || (i !== jsonAt && i !== jsonAt + 1)));
  const names = benchFiles(dir).filter((name) => wanted.length === 0 || wanted.includes(name));
  if (names.length === 0) {
    console.error(`No bench named ${wanted.join(", ")}; there are: ${benchFiles(dir).join(", ")}`);
    process.exitCode = 1;
    return;
  }
  if (process.env.BENCH_CHILD) return runOne(dir, names[0]!, process.env.BENCH_RESULT_FILE!);

  // Timings swing with whatever else the machine runs; the load average says how busy it was.
  const machine = {
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    cpus: os.cpus().length,
    loadAverage: os.loadavg(),
  };
  console.log(
    `Node ${machine.node} on ${machine.platform}, ${machine.cpus} CPUs, load average ${machine.loadAverage.map((n) => n.toFixed(2)).join(" ")}; each bench in its own process`,
  );
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-results-"));
  const benches: Record<string, BenchResult[]> = {};
  try {
    for (const name of names) benches[name] = await runInChild(name, path.join(scratch, `${name}.json`));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const figures = Object.values(benches).flatMap((results) => results.flatMap((r) => r.figures));
  const misses = figures.filter((figure) => verdict(figure) === "MISS");
  console.log(
    misses.length
      ? `\n${misses.length} figure(s) missed their target: ${misses.map((f) => f.label.trim()).join("; ")}.`
      : `\nEvery figure with a target met it (${figures.filter((f) => f.target).length} targets).`,
  );
  if (jsonFile) {
    fs.writeFileSync(jsonFile, `${JSON.stringify({ date: new Date().toISOString(), machine, benches }, null, 2)}\n`);
    console.log(`Figures written to ${jsonFile}.`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
