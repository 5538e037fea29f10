// The console's HTTP server: Next's request handler behind two checks that Next cannot make itself.
// Next answers an unknown method such as TRACE with a 500 before proxy.ts runs, and a malformed
// percent-escape in a dynamic route segment (/api/tools/%E0) with a 500 too; here both get a plain
// 405 (with Allow) or 400 before Next sees them. Everything else (proxy.ts, headers, routes) is Next's.
// Usage: node scripts/server.mjs HOST PORT   (scripts/start.mjs runs it after the build)
import http from "node:http";
import next from "next";
import { root } from "./setup.mjs";

/** The methods some route of the console answers; any other is refused for every path. */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const ALLOWED = new Set(METHODS);

/**
 * Why a request is refused before Next handles it, as [status, headers, text]; undefined to pass it on.
 * Responses made here do not get next.config's headers, so they carry nosniff themselves.
 */
function refuseEarly(method, url) {
  const plain = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "no-store" };
  if (!ALLOWED.has(method ?? "")) return [405, { ...plain, allow: METHODS.join(", ") }, `The method ${method} is not supported\n`];
  // Only origin-form targets ("/path?query"): "*" or an absolute URL is no path of this console.
  if (!url?.startsWith("/")) return [400, plain, "The request target must be a path starting with /\n"];
  const path = url.split("?")[0];
  try {
    decodeURIComponent(path);
  } catch {
    return [400, plain, "The path has a malformed percent-encoding\n"];
  }
  return undefined;
}

const [host = "127.0.0.1", portText = "3000"] = process.argv.slice(2);
const port = Number(portText);
const app = next({ dev: false, dir: root, hostname: host, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((request, response) => {
  const refused = refuseEarly(request.method, request.url);
  if (!refused) return void handle(request, response);
  const [status, headers, text] = refused;
  response.writeHead(status, headers);
  response.end(request.method === "HEAD" ? undefined : text);
});
// Once listening, one request of its own opens the console's services (database, migrations, its
// MCP servers) now rather than on the first visitor's request; a failure here waits for that request.
server.listen(port, host, () => {
  const loopback = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  http
    .get({ host: loopback, port, path: "/api/health", headers: { host: `localhost:${port}` } }, (response) => response.resume())
    .on("error", () => {});
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections());
