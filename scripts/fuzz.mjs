// `npm run fuzz`: the long fuzz pass of issue 11. First the Vitest fuzz files (test/fuzz: every
// endpoint in-process with random and adversarial requests, and raw requests over a socket to the
// node adapter), then raw requests to the built console (scripts/server.mjs in front of Next) on a
// free port with a throw-away database, where requests may change things. Any 5xx, missing answer,
// write by a refused request, run left running or unhealthy end fails it.
// Environment: FUZZ_ITERATIONS (requests per endpoint, default 300; the built console gets 25
// times as many raw requests in all), FUZZ_SEED (replay a failing run: each pass prints its seed).
// Flags: --skip-build (fuzz the build as it is, even if sources are newer), --unit-only (no build).
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { duration, ensureBuild, ensureDependencies, root, runStatus, Steps } from "./setup.mjs";

const flags = new Set(process.argv.slice(2));
const unitOnly = flags.has("--unit-only");
const iterations = process.env.FUZZ_ITERATIONS || "300";
const started = Date.now();
const steps = new Steps(unitOnly ? 2 : 4);
const bin = (...parts) => path.join(root, "node_modules", ...parts);
const env = { FUZZ_ITERATIONS: iterations, NEXT_TELEMETRY_DISABLED: "1" };

/** Run one step's command; on failure, print the summary naming the step and exit with its status. */
function check(label, hint, command, args, options) {
  steps.start(label, hint);
  const status = runStatus(command, args, options);
  if (status === 0) return steps.end();
  steps.end(`FAILED (exit ${status})`);
  finish(`npm run fuzz failed at: ${label}`, status);
}

function finish(headline, status) {
  console.log(`\n${headline} (${duration(Date.now() - started)})`);
  for (const line of steps.summary()) console.log(line);
  process.exit(status);
}

ensureDependencies(steps);
check(
  "fuzz: endpoints in-process and over a socket",
  `vitest test/fuzz, ${iterations} requests per endpoint`,
  process.execPath,
  [bin("vitest", "vitest.mjs"), "run", "test/fuzz"],
  {
    env,
  },
);
if (unitOnly) finish("npm run fuzz passed (--unit-only)", 0);

if (flags.has("--skip-build")) steps.skip("building the console", "skipped (--skip-build)");
else ensureBuild(steps);
const port = await freePort();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-fuzz-"));
// The throw-away databases are recorded in a state folder of their own, not the user's.
process.env.CONSOLE_STATE_DIR ||= path.join(dataDir, "state");
try {
  // Playwright starts the built console (playwright.config's webServer) and runs only the fuzz spec.
  check(
    "fuzz: the built console over raw HTTP",
    `e2e/fuzz.spec.ts on port ${port}`,
    process.execPath,
    [bin("@playwright", "test", "cli.js"), "test", "e2e/fuzz.spec.ts"],
    {
      env: { ...env, E2E_PORT: String(port), CONSOLE_DB: path.join(dataDir, "console.db"), FUZZ_ALLOW_WRITES: "1" },
    },
  );
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
finish("npm run fuzz passed", 0);

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
