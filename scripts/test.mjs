// `npm test`: type check, lint, format check, unit and integration suites (Vitest), then the
// Playwright suite in Chromium against a production build served on a free port with a throw-away
// database. Each step prints a heading, and the run ends with one line per step: its result and time.
// Flags: --e2e-only skips the checks and Vitest; anything after `--` goes to Playwright.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { duration, ensureBuild, ensureDependencies, root, run, runStatus, Steps } from "./setup.mjs";

const args = process.argv.slice(2);
const dashdash = args.indexOf("--");
const flags = new Set(dashdash === -1 ? args : args.slice(0, dashdash));
const playwrightArgs = dashdash === -1 ? [] : args.slice(dashdash + 1);
const e2eOnly = flags.has("--e2e-only");
const started = Date.now();

const steps = new Steps(e2eOnly ? 4 : 8);
const bin = (...parts) => path.join(root, "node_modules", ...parts);

/** Run one step's command; on failure, print the summary naming the step and exit with its status. */
function check(label, hint, command, commandArgs, options) {
  steps.start(label, hint);
  const status = runStatus(command, commandArgs, options);
  if (status === 0) return steps.end();
  steps.end(`FAILED (exit ${status})`);
  finish(`npm test failed at: ${label}`, status);
}

function finish(headline, status) {
  console.log(`\n${headline} (${duration(Date.now() - started)})`);
  for (const line of steps.summary()) console.log(line);
  process.exit(status);
}

ensureDependencies(steps);
// The databases the suites create are recorded in a state folder of their own, not the user's.
process.env.CONSOLE_STATE_DIR ||= fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-state-"));
if (!e2eOnly) {
  // Lint and format what git tracks: a scratch file in the checkout is not the project's.
  const tracked = trackedSources();
  check("type check", "tsc", process.execPath, [bin("typescript", "bin", "tsc"), "--noEmit", "-p", "."]);
  const code = tracked?.filter((file) => /\.(ts|tsx|mts|mjs|js)$/.test(file));
  check("lint", "eslint, tracked sources", process.execPath, [bin("eslint", "bin", "eslint.js"), ...(code ?? ["."])]);
  check("format check", "prettier, tracked files", process.execPath, [
    bin("prettier", "bin", "prettier.cjs"),
    "--check",
    "--log-level",
    "warn",
    ...(tracked ?? ["."]),
  ]);
  check("unit and integration tests", "vitest", process.execPath, [bin("vitest", "vitest.mjs"), "run"]);
}

const chromium = ensureChromium();
ensureBuild(steps);

const port = await freePort();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-e2e-"));
try {
  check("browser tests", `Playwright in ${chromium}`, process.execPath, [bin("@playwright", "test", "cli.js"), "test", ...playwrightArgs], {
    env: { E2E_PORT: String(port), CONSOLE_DB: path.join(dataDir, "console.db"), CHROMIUM_PATH: chromium, NEXT_TELEMETRY_DISABLED: "1" },
  });
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
finish("npm test passed", 0);

/** The files git tracks that lint and format check, or undefined outside a git checkout (then: everything). */
function trackedSources() {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--", "."], { cwd: root, encoding: "utf8" });
  if (listed.status !== 0) return undefined;
  const files = listed.stdout.split("\0").filter((file) => file && fs.existsSync(path.join(root, file)));
  return files.filter((file) => /\.(ts|tsx|mts|mjs|js|json|css)$/.test(file) && !file.startsWith("drizzle/"));
}

/** The Chromium to drive: CHROMIUM_PATH, else Debian's, installed with apt when we are root. */
function ensureChromium() {
  const wanted = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
  if (fs.existsSync(wanted)) return (steps.skip("Chromium", `found at ${wanted}`), wanted);
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const hasApt = spawnSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" }).status === 0;
  if (process.env.CHROMIUM_PATH || !isRoot || !hasApt) {
    console.error(`Chromium is missing at ${wanted}: install Debian's chromium (sudo apt-get install -y chromium) or set CHROMIUM_PATH.`);
    process.exit(1);
  }
  steps.start("installing Debian's chromium with apt-get", "about a minute; never a browser download of its own");
  run("apt-get", ["update", "-qq"], { env: { DEBIAN_FRONTEND: "noninteractive" } });
  run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "chromium"], { env: { DEBIAN_FRONTEND: "noninteractive" } });
  steps.end();
  return wanted;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
