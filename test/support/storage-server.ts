// A console in its own process, for storage tests that need another user than the test's (root
// ignores file permissions): health and one write route over real HTTP on 127.0.0.1. Prints
// `{"url": ...}` once listening, or exits 3 with the start-up error's message on stderr. Stops
// when its stdin closes.
import { consoleApi } from "../../lib/api";
import { loadConfig } from "../../lib/config";
import { DatabaseOpenError } from "../../lib/db";
import { createNodeServer, listenLocal, type WebHandler } from "../../lib/http/node-adapter";
import { createServices, type SqliteServices } from "../../lib/services";

let services: SqliteServices;
try {
  services = createServices(loadConfig());
} catch (error) {
  if (!(error instanceof DatabaseOpenError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(3);
}
const api = consoleApi(services);
const server = createNodeServer([
  { method: "GET", path: "/api/health", handler: api.health.get as WebHandler },
  { method: "PATCH", path: "/api/tools/[name]", handler: api.tools.update as WebHandler },
]);
void listenLocal(server).then((url) => process.stdout.write(`${JSON.stringify({ url })}\n`));
process.stdin.resume();
process.stdin.on("end", () => {
  server.closeAllConnections();
  server.close(() => {
    services.close();
    process.exit(0);
  });
});
