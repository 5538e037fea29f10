// Set-up shared by `npm start` and `npm test`: dependencies, the production build, child processes.
// Plain Node with no dependencies, because it runs before node_modules exists.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Run a command in the project root, inheriting the terminal; resolves with its exit status (1 when it cannot start). */
export function runStatus(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options, env: { ...process.env, ...options.env } });
  if (result.error) {
    console.error(`Could not run ${command}: ${result.error.message}`);
    return 1;
  }
  return result.status ?? 1;
}

/** Run a command in the project root, inheriting the terminal; exit with its status on failure. */
export function run(command, args, options = {}) {
  const status = runStatus(command, args, options);
  if (status !== 0) process.exit(status);
}

/** "2m 51s" or "8.1s". */
export function duration(ms) {
  const s = ms / 1000;
  return s >= 60 ? `${Math.floor(s / 60)}m ${Math.round(s % 60)}s` : `${s.toFixed(1)}s`;
}

/**
 * Numbered steps that say what they do while they run and how long each took:
 * "[1/4] installing dependencies (about 3 minutes on first run)...", then "      done in 2m 51s".
 */
export class Steps {
  constructor(total) {
    this.total = total;
    this.count = 0;
    this.results = [];
    this.current = undefined;
  }

  /** Start a step (ending the one before). */
  start(label, hint) {
    this.end();
    this.count += 1;
    console.log(`\n[${this.count}/${this.total}] ${label}${hint ? ` (${hint})` : ""}...`);
    this.current = { label, started: Date.now() };
  }

  /** End the current step with its result ("ok", "skipped: ...", "FAILED ..."). */
  end(result = "ok") {
    if (!this.current) return;
    const took = Date.now() - this.current.started;
    this.results.push({ label: this.current.label, result, took });
    if (result === "ok") console.log(`      done in ${duration(took)}`);
    this.current = undefined;
  }

  /** A step that did not need to run, counted and said in one line. */
  skip(label, why) {
    this.end();
    this.count += 1;
    console.log(`\n[${this.count}/${this.total}] ${label}: ${why}`);
    this.results.push({ label, result: `skipped: ${why}`, took: 0 });
  }

  /** One line per step: its result and its time. */
  summary() {
    this.end();
    return this.results.map(({ label, result, took }) =>
      `  ${result.startsWith("FAILED") ? "✗" : "✓"} ${label.padEnd(34)} ${result.padEnd(8)} ${took ? duration(took) : ""}`.trimEnd(),
    );
  }
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Install dependencies when node_modules is missing or older than the lockfile (a step of `steps`). */
export function ensureDependencies(steps) {
  const installed = mtime(path.join(root, "node_modules", ".package-lock.json"));
  const lock = mtime(path.join(root, "package-lock.json"));
  if (installed && installed >= lock) return steps.skip("installing dependencies", "up to date");
  steps.start(
    installed ? "installing dependencies: package-lock.json changed" : "installing dependencies",
    installed ? "about a minute" : "about 3 minutes on first run",
  );
  if (!installed)
    console.log(
      "      better-sqlite3 is compiled from source (about 2 minutes, with python3, make and g++) when its prebuilt binary for this Node cannot be downloaded, as on a machine that reaches only the npm registry.",
    );
  run(npm, lock ? ["ci", "--no-audit", "--no-fund"] : ["install", "--no-audit", "--no-fund"]);
  steps.end();
}

const BUILD_INPUTS = [
  "app",
  "components",
  "lib",
  "public",
  "proxy.ts",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "tsconfig.build.json",
  "package-lock.json",
];

function newest(entry) {
  const full = path.join(root, entry);
  let stat;
  try {
    stat = fs.statSync(full);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const child of fs.readdirSync(full)) latest = Math.max(latest, newest(path.join(entry, child)));
  return latest;
}

/** Build for production when there is no build or a source file is newer than it (a step of `steps`). */
export function ensureBuild(steps) {
  const built = mtime(path.join(root, ".next", "BUILD_ID"));
  const sources = Math.max(...BUILD_INPUTS.map(newest));
  if (built && built >= sources) return steps.skip("building the console", "the build is up to date");
  steps.start(built ? "building the console: sources changed since the last build" : "building the console", "about a minute");
  run(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
    env: { NEXT_TELEMETRY_DISABLED: "1" },
  });
  steps.end();
}

/** Apply migrations, check the configuration and seed the demo tools; exits with a clear line on failure. */
export function prepareDatabase(env = {}) {
  run(process.execPath, ["--import", "tsx", path.join(root, "scripts", "prepare.ts")], { env });
}

/**
 * Start a long-running child that stops with this process: SIGINT, SIGTERM and SIGHUP sent to this
 * process (by a terminal, or by `kill` of the npm process alone) go to the child, and this process
 * waits for it to exit. Resolves with its exit code.
 */
export function startChild(command, args, options = {}) {
  const child = spawn(command, args, { cwd: root, stdio: "inherit", ...options, env: { ...process.env, ...options.env } });
  const forward = (signal) => child.kill(signal);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, forward);
  return new Promise((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? (signal === "SIGINT" || signal === "SIGTERM" ? 0 : 1))),
  );
}
