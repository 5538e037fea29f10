// The A2A bench's three servers (bench/a2a.ts), each made in a process of its own by
// ./served-handler.ts: the console's handler, a bare SDK server answering the same call, and an
// empty handler.
import { consoleApi } from "../../lib/api";
import type { WebHandler } from "../../lib/http/node-adapter";
import { bareA2aHandler } from "./bare-sdk";
import { noopServices } from "./noop-services";
import type { HandlerFactory } from "./served-handler";

export const A2A_PATH = "/api/a2a";

/** The console's A2A handler over its own services (the no-op registered). */
export const consoleA2a: HandlerFactory = async () => {
  const { services, close } = await noopServices();
  return { path: A2A_PATH, handler: consoleApi(services).a2a.post as WebHandler, close };
};

/** The SDK's pattern (./bare-sdk.ts). */
export const bareA2a: HandlerFactory = async () => ({ path: A2A_PATH, handler: bareA2aHandler() });

/** node:http and the adapter alone: what any handler pays before it starts. */
export const emptyA2a: HandlerFactory = async () => ({
  path: A2A_PATH,
  handler: async () => Response.json({ jsonrpc: "2.0", id: 1, result: {} }),
});
