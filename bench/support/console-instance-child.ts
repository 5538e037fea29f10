// One console instance for bench/postgres.ts, in its own process: services opened from
// DATABASE_URL (or CONSOLE_DB when unset) and the AG-UI and approvals routes served by the node
// adapter on 127.0.0.1. Prints `{"url": ..., "pid": ...}` once listening; stops when stdin closes.
import os from "node:os";
import path from "node:path";
import { consoleApi } from "../../lib/api";
import { loadConfig } from "../../lib/config";
import { createNodeServer, listenLocal, type WebHandler } from "../../lib/http/node-adapter";
import { openServices } from "../../lib/services";

async function main(): Promise<void> {
  const services = await openServices(
    loadConfig({
      DATABASE_URL: process.env.DATABASE_URL,
      CONSOLE_DB: process.env.CONSOLE_DB,
      CONSOLE_STATE_DIR: path.join(os.tmpdir(), "agui-console-bench-state"),
      LOG_LEVEL: "silent",
      AGENT_STREAM_DELAY_MS: "0",
      SEED_DEMO: "1",
    }),
  );
  const api = consoleApi(services);
  const server = createNodeServer([
    { method: "POST", path: "/api/agui/[agent]", handler: api.agui.run as WebHandler },
    { method: "GET", path: "/api/approvals", handler: api.approvals.list as WebHandler },
    { method: "GET", path: "/api/approvals/events", handler: api.approvals.events as WebHandler },
    { method: "POST", path: "/api/approvals/[id]/decision", handler: api.approvals.decide as WebHandler },
  ]);
  const url = await listenLocal(server);
  process.stdout.write(`${JSON.stringify({ url, pid: process.pid })}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => {
    server.closeAllConnections();
    server.close(() => {
      services.close();
      setTimeout(() => process.exit(0), 200);
    });
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(3);
});
