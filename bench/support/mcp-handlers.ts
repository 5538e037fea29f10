// The MCP bench's servers (bench/mcp.ts), each made in a process of its own by ./served-handler.ts:
// the console's handler; the bare SDK server with the same tool, as the SDK serves it on Node and
// through the console's adapter; that server calling the console's executor; and an empty handler
// answering the bytes the transport sends for the no-op.
import http from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { consoleApi } from "../../lib/api";
import type { WebHandler } from "../../lib/http/node-adapter";
import { SSE_HEADERS } from "../../lib/http/sse";
import { bareMcpHandler, bareMcpServer, bareMcpServing } from "./bare-sdk";
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

/** The SDK's own stateless pattern (./bare-sdk.ts) on the console's node adapter. */
export const bareMcp: HandlerFactory = async () => ({ path: MCP_PATH, handler: bareMcpHandler() });

/**
 * MCP as the SDK serves it on Node (its stateless example, `simpleStatelessStreamableHttp`, less
 * express): node:http, and per request the bare server (with the refusing form validator, so that it
 * builds no Ajv) and the SDK's Node transport, which hands the request to the web-standard one.
 * Nothing of the console; POST `path` only.
 */
function bareMcpNodeServer(path: string): http.Server {
  return http.createServer((req, res) => {
    if (req.method !== "POST" || req.url !== path) {
      res.writeHead(404).end();
      return;
    }
    const server = bareMcpServer(async () => {});
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
}

/** The bare SDK server as the SDK serves it on Node: no code of the console's, not even its adapter. */
export const sdkNodeMcp: HandlerFactory = async () => ({ server: bareMcpNodeServer(MCP_PATH) });

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
