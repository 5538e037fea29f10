import { spawn } from "node:child_process";
import fs from "node:fs";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "../..");

/** A console served from the production build, as `npm start` serves it, on a free loopback port. */
export interface BuiltConsole {
  base: string;
  stop(): Promise<void>;
}

/** True when there is a production build to serve (`npm run build` made one). */
export function hasBuild(): boolean {
  return fs.existsSync(path.join(root, ".next", "BUILD_ID"));
}

/**
 * Serve the production build with scripts/server.mjs on 127.0.0.1 over `database` (a throw-away one
 * in a temporary folder unless given), with `env` added to this process's environment, and wait
 * until it answers /api/health.
 */
export async function startBuiltConsole(options: { database?: string; env?: Record<string, string> } = {}): Promise<BuiltConsole> {
  const dir = options.database ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-bench-next-"));
  const database = options.database ?? path.join(dir!, "bench.db");
  const port = await freePort();
  const server = spawn(process.execPath, [path.join(root, "scripts", "server.mjs"), "127.0.0.1", String(port)], {
    cwd: root,
    env: {
      ...process.env,
      CONSOLE_DB: database,
      // Off the operator's list of known databases (in their state folder) unless the caller says otherwise.
      ...(dir && { CONSOLE_STATE_DIR: dir }),
      LOG_LEVEL: "error",
      NEXT_TELEMETRY_DISABLED: "1",
      NODE_ENV: "production",
      // The baseline routes the benches time the console's routes against (./bench-routes.ts).
      CONSOLE_BENCH_ROUTES: "1",
      ...options.env,
    },
    stdio: "ignore",
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    server.kill("SIGTERM");
    await new Promise((resolve) => (server.exitCode === null ? server.once("exit", resolve) : resolve(undefined)));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(base);
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, stop };
}

async function waitForHealth(base: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("the console did not start within 60 s");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
