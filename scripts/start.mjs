// `npm start`: install what is missing, build when stale, prepare the database, serve the console.
// Each step says what it does and how long it took. Flags (for the test runner): --skip-install, --skip-build.
import net from "node:net";
import path from "node:path";
import { ensureBuild, ensureDependencies, prepareDatabase, root, startChild, Steps } from "./setup.mjs";

const flags = new Set(process.argv.slice(2));
const steps = new Steps(4);
if (flags.has("--skip-install")) steps.skip("installing dependencies", "skipped (--skip-install)");
else ensureDependencies(steps);
if (flags.has("--skip-build")) steps.skip("building the console", "skipped (--skip-build)");
else ensureBuild(steps);
steps.start("preparing the database", "settings, migrations, demo tools");
prepareDatabase();
steps.end();

// prepare.ts has checked HOST and PORT; an empty one means the default.
const host = process.env.HOST || "127.0.0.1";
const port = Number(process.env.PORT || "3000");
steps.start(`starting the console on ${host}:${port}`);
const refused = await cannotListen(host, port);
if (refused) {
  console.error(`Cannot start: ${refused}`);
  process.exit(1);
}
steps.end();
console.log(`\nAG-UI Console on http://${host.includes(":") ? `[${host}]` : host}:${port}  (Ctrl-C stops it)`);
// scripts/server.mjs is `next start` with the method and path checks Next cannot make itself.
const code = await startChild(process.execPath, [path.join(root, "scripts", "server.mjs"), host, String(port)], {
  env: { NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
});
process.exit(code);

/** Why the console could not listen on host:port, found by listening there for a moment; undefined when it can. */
function cannotListen(host, port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", (error) => {
      switch (error.code) {
        case "EADDRINUSE":
          return resolve(
            `port ${port} on ${host} is in use (another console, or another program). Stop it, or choose another port: PORT=${port + 1} npm start`,
          );
        case "EACCES":
          return resolve(
            `this user may not listen on port ${port} (ports below 1024 need privileges). Choose another port: PORT=3000 npm start`,
          );
        case "EADDRNOTAVAIL":
        case "ENOTFOUND":
        case "EAI_AGAIN":
          return resolve(
            `HOST=${host} is not an address of this machine (${error.code}). Use 127.0.0.1 (the default), 0.0.0.0 for every address, or one this machine has.`,
          );
        default:
          return resolve(`cannot listen on ${host}:${port}: ${error.message}`);
      }
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}
