// `npm run bench [name...] [-- --json FILE] [--compare OLD.json]`: runs every bench file in this
// folder (or those named), each in its own process, and prints its figures in one format, with
// their targets and PASS or MISS. A bench file default-exports an async function returning its
// figures (BenchResult); add a new one and it runs here. `--json FILE` also writes every figure
// (value, unit, target) to FILE; `--compare OLD.json` then prints each figure beside the one in
// OLD.json with the change, marking what got worse. A miss is reported, not an exit code: timings
// are not tests.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type BenchFile, formatComparison } from "./support/compare";
import { benchBundle } from "./support/bench-bundle";
import { type BenchResult, verdict } from "./support/measure";

function benchFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && entry.name !== "index.ts")
    .map((entry) => entry.name.replace(/\.ts$/, ""))
    .sort();
}

/**
 * Run one bench in a process of its own, so that its memory figures (peak RSS) and its timings
 * owe nothing to the benches before it; its lines are passed through. The process runs the bench
 * bundled, as production runs Next's bundle (see ./support/bench-bundle.ts for what tsx's modules
 * cost a process that loads the console). Resolves with its figures.
 */
async function runInChild(dir: string, name: string, resultFile: string): Promise<BenchResult[]> {
  console.log(`\n== ${name}`);
  const bundle = await benchBundle(
    `bench-${name}`,
    `import bench from ${JSON.stringify(path.join(dir, `${name}.ts`))};\n` +
      `import { runOne } from ${JSON.stringify(path.join(dir, "support", "run-one.ts"))};\n` +
      `await runOne(${JSON.stringify(name)}, bench, process.env.BENCH_RESULT_FILE);\n` +
      // Whatever a bench leaves open (a pool, a timer) does not keep its process.
      `process.exit(0);\n`,
    dir,
  );
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bundle], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, BENCH_RESULT_FILE: resultFile },
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
  const { wanted, options } = parseArgs(process.argv.slice(2));
  const jsonFile = options.get("--json");
  const compareFile = options.get("--compare");
  // Read the old figures first: a wrong path should not cost a whole run.
  const before = compareFile ? readBenchFile(compareFile) : undefined;
  const names = benchFiles(dir).filter((name) => wanted.length === 0 || wanted.includes(name));
  if (names.length === 0) {
    console.error(`No bench named ${wanted.join(", ")}; there are: ${benchFiles(dir).join(", ")}`);
    process.exitCode = 1;
    return;
  }

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
    for (const name of names) benches[name] = await runInChild(dir, name, path.join(scratch, `${name}.json`));
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
  const now: BenchFile = { date: new Date().toISOString(), machine, benches };
  if (jsonFile) {
    fs.writeFileSync(jsonFile, `${JSON.stringify(now, null, 2)}\n`);
    console.log(`Figures written to ${jsonFile}.`);
  }
  if (before && compareFile) {
    console.log("");
    for (const line of formatComparison(before, now, compareFile)) console.log(line);
  }
}

const VALUE_FLAGS = new Set(["--json", "--compare"]);

/** Bench names, and the flags that take a file name (each needs one). */
function parseArgs(args: string[]): { wanted: string[]; options: Map<string, string> } {
  const wanted: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") continue;
    if (VALUE_FLAGS.has(arg)) {
      const value = args[++i];
      if (!value || value.startsWith("--")) throw new Error(`${arg} needs a file name: npm run bench -- ${arg} bench.json`);
      options.set(arg, value);
    } else if (arg.startsWith("--")) {
      throw new Error(`Unknown option ${arg}; there are --json FILE and --compare OLD.json`);
    } else {
      wanted.push(arg);
    }
  }
  return { wanted, options };
}

/** A file `--json` wrote; throws naming the file when it is missing or is not one. */
function readBenchFile(file: string): BenchFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`--compare ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const benches = (parsed as { benches?: unknown } | null)?.benches;
  if (typeof benches !== "object" || benches === null || Array.isArray(benches)) {
    throw new Error(`--compare ${file}: not a file written by npm run bench -- --json (it has no "benches")`);
  }
  return parsed as BenchFile;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
