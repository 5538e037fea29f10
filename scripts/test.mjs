// `npm test`: type check, lint, unit and integration suites (Vitest), then the Playwright suite in Chromium against a
// production build served on a free port with a throw-away database.
// Flags: --e2e-only skips Vitest; anything after `--` goes to Playwright.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ensureBuild, ensureDependencies, root, run } from "./setup.mjs";

const args = process.argv.slice(2);
const dashdash = args.indexOf("--");
const flags = new Set(dashdash === -1 ? args : args.slice(0, dashdash));
const playwrightArgs = dashdash === -1 ? [] : args.slice(dashdash + 1);

ensureDependencies();
if (!flags.has("--e2e-only")) {
  // Types and lint first: they are the cheapest failures to find.
  run(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "."]);
  run(process.execPath, [path.join(root, "node_modules", "eslint", "bin", "eslint.js"), "."]);
  run(process.execPath, [path.join(root, "node_modules", "prettier", "bin", "prettier.cjs"), "--check", "--log-level", "warn", "."]);
  run(process.execPath, [path.join(root, "node_modules", "vitest", "vitest.mjs"), "run"]);
}

const chromium = ensureChromium();
ensureBuild();

const port = await freePort();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-e2e-"));
try {
  run(process.execPath, [path.join(root, "node_modules", "@playwright", "test", "cli.js"), "test", ...playwrightArgs], {
    env: {
      E2E_PORT: String(port),
      CONSOLE_DB: path.join(dataDir, "console.db"),
      CHROMIUM_PATH: chromium,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** The Chromium to drive: CHROMIUM_PATH, else Debian's, installed with apt when we are root. */
function ensureChromium() {
  const wanted = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
  if (fs.existsSync(wanted)) return wanted;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const hasApt = spawnSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" }).status === 0;
  if (process.env.CHROMIUM_PATH || !isRoot || !hasApt) {
    console.error(`Chromium is missing at ${wanted}: install Debian's chromium (sudo apt-get install -y chromium) or set CHROMIUM_PATH.`);
    process.exit(1);
  }
  console.log("Chromium is missing: installing Debian's chromium with apt-get...");
  run("apt-get", ["update", "-qq"], { env: { DEBIAN_FRONTEND: "noninteractive" } });
  run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "chromium"], { env: { DEBIAN_FRONTEND: "noninteractive" } });
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
