// Set-up shared by `npm start` and `npm test`: dependencies, the production build, child processes.
// Plain Node with no dependencies, because it runs before node_modules exists.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Run a command in the project root, inheriting the terminal; exit with its status on failure. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options, env: { ...process.env, ...options.env } });
  if (result.error) {
    console.error(`Could not run ${command}: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Install dependencies when node_modules is missing or older than the lockfile. */
export function ensureDependencies() {
  const installed = mtime(path.join(root, "node_modules", ".package-lock.json"));
  const lock = mtime(path.join(root, "package-lock.json"));
  if (installed && installed >= lock) return;
  console.log(installed ? "package-lock.json changed: installing dependencies..." : "Installing dependencies (first run)...");
  run(npm, lock ? ["ci", "--no-audit", "--no-fund"] : ["install", "--no-audit", "--no-fund"]);
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

/** Build for production when there is no build or a source file is newer than it. */
export function ensureBuild() {
  const built = mtime(path.join(root, ".next", "BUILD_ID"));
  const sources = Math.max(...BUILD_INPUTS.map(newest));
  if (built && built >= sources) return;
  console.log(built ? "Sources changed since the last build: building..." : "Building the console (first run)...");
  run(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
    env: { NEXT_TELEMETRY_DISABLED: "1" },
  });
}

/** Apply migrations, check the configuration and seed the demo tools; exits with a clear line on failure. */
export function prepareDatabase(env = {}) {
  run(process.execPath, ["--import", "tsx", path.join(root, "scripts", "prepare.ts")], { env });
}

/** Start a long-running child that stops with this process; resolves with its exit code. */
export function startChild(command, args, options = {}) {
  const child = spawn(command, args, { cwd: root, stdio: "inherit", ...options, env: { ...process.env, ...options.env } });
  const forward = (signal) => child.kill(signal);
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}
