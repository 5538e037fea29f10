// The MCP bench's three servers (bench/mcp.ts), each made in a process of its own by
// ./served-handler.ts: the console's handler, a bare SDK server with the same tool, that server
// calling the console's executor, and an empty handler answering the bytes the transport sends for the no-op.
import { consoleApi } from "../../lib/api";
import type { WebHandler } from "../../lib/http/node-adapter";
import { SSE_HEADERS } from "../../lib/http/sse";
import { bareMcpHandler, bareMcpServing } from "./bare-sdk";
import { noopServices } from "./noop-services";
import type { HandlerFactory } from "./served-handler";

export const MCP_PATH = "/api/mcp";

/** What the transport sends for a tools/call of the no-op: one SSE event with the JSON-RPC answer. */
export const NOOP_ANSWER = `event: message\ndata: ${JSON.stringify({ result: { content: [{ type: "text", text: "{}" }], structuredContent: {} }, jsonrpc: "2.0", id: 1 })}\n\n`;

/** The console's MCP handler over its own services. */
export const consoleMcp: HandlerFactory = async () => {
  const { services, close } = await noopServices();
  return { path: MCP_PATH, handler: consoleApi(services).mcp.post as WebHandler, close };
};

/** The SDK's own stateless pattern (./bare-sdk.ts). */
export const bareMcp: HandlerFactory = async () => ({ path: MCP_PATH, handler: bareMcpHandler() });

/**
 * The bare SDK server whose tools/call runs the no-op through the console's executor (its checks,
 * approval gate and call record, as the console's services make it): what tools/call must do, and
 * nothing else of the console's handler (no auth, body limits, tasks or result shaping).
 */
export const executorMcp: HandlerFactory = async () => {
  const { services, close } = await noopServices();
  return { path: MCP_PATH, handler: bareMcpServing(() => services.executor.call("noop", {})), close };
};

/** node:http and the adapter alone: what any handler pays before it starts, answering the bare server's bytes. */
export const emptyMcp: HandlerFactory = async () => ({
  path: MCP_PATH,
  handler: async () => new Response(NOOP_ANSWER, { headers: SSE_HEADERS }),
});
