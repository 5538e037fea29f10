// Serves one bench handler (see ./served-handler.ts): argv names the module and its factory.
// Prints the base URL once listening; stops when stdin closes.
import { pathToFileURL } from "node:url";
import { createNodeServer, listenLocal } from "../../lib/http/node-adapter";
import type { HandlerFactory } from "./served-handler";

async function main(): Promise<void> {
  const [modulePath, factory] = process.argv.slice(2);
  const module = (await import(pathToFileURL(modulePath!).href)) as Record<string, HandlerFactory>;
  const made = await module[factory!]!();
  const server = createNodeServer([{ method: "POST", path: made.path, handler: made.handler }]);
  process.stdout.write(`${await listenLocal(server)}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => {
    server.closeAllConnections();
    server.close(() => {
      made.close?.();
      process.exit(0);
    });
  });
}

void main();
