import { defineConfig } from "@playwright/test";
import { CHROMIUM_LAUNCH } from "./e2e/chromium";

// `npm test` (scripts/test.mjs) sets these: a free port, a throw-away database and Chromium's path.
const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    browserName: "chromium",
    launchOptions: CHROMIUM_LAUNCH,
  },
  webServer: {
    command: "node scripts/start.mjs --skip-install --skip-build",
    url: `${baseURL}/api/health`,
    timeout: 120_000,
    // Set E2E_REUSE=1 to run the specs against a console you started yourself on E2E_PORT.
    reuseExistingServer: process.env.E2E_REUSE === "1",
    stdout: "pipe",
    stderr: "pipe",
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      CONSOLE_DB: process.env.CONSOLE_DB ?? "./data/e2e.db",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
      // The specs' own API servers listen on 127.0.0.1: the operator's allowance names that address.
      OUTBOUND_ALLOW: "127.0.0.1/32",
      // e2e/sign-in.spec.ts reaches the console as console.test, a name that needs signing in.
      ALLOWED_HOSTS: "console.test",
      // e2e/cors.spec.ts serves a page from 127.0.0.2 on the console's port: pages there may call it (CORS).
      CORS_ORIGINS: `http://127.0.0.2:${port}`,
    },
  },
});
