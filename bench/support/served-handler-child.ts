// Serves one bench handler (see ./served-handler.ts): bundled with the module of its factories,
// it is given the factory's name in argv. Prints the base URL once listening; stops when stdin closes.
import { createNodeServer, listenLocal } from "../../lib/http/node-adapter";
import type { HandlerFactory } from "./served-handler";

export async function serveFactory(module: Record<string, unknown>, factory: string): Promise<void> {
  const make = module[factory] as HandlerFactory | undefined;
  if (typeof make !== "function") throw new Error(`no handler factory named ${factory}`);
  const made = await make();
  const server = "server" in made ? made.server : createNodeServer([{ method: "POST", path: made.path, handler: made.handler }]);
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
