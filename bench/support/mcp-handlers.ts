// The MCP bench's three servers (bench/mcp.ts), each made in a process of its own by
// ./served-handler.ts: the console's handler, a bare SDK server with the same tool, and an empty
// handler answering the bytes the transport sends for the no-op.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { consoleApi } from "../../lib/api";
import type { WebHandler } from "../../lib/http/node-adapter";
import { SSE_HEADERS } from "../../lib/http/sse";
import { NOOP, noopServices } from "./noop-services";
import type { HandlerFactory } from "./served-handler";

export const MCP_PATH = "/api/mcp";

/** What the transport sends for a tools/call of the no-op: one SSE event with the JSON-RPC answer. */
export const NOOP_ANSWER = `event: message\ndata: ${JSON.stringify({ result: { content: [{ type: "text", text: "{}" }], structuredContent: {} }, jsonrpc: "2.0", id: 1 })}\n\n`;

// The same refusing validator the console gives its servers, so the baseline does not pay for Ajv either.
const NO_FORM: jsonSchemaValidator = { getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "none" }) };

/** The console's MCP handler over its own services. */
export const consoleMcp: HandlerFactory = async () => {
  const { services, close } = await noopServices();
  return { path: MCP_PATH, handler: consoleApi(services).mcp.post as WebHandler, close };
};

/** The SDK's own stateless pattern with one tool: a Server and a transport per request. */
export const bareMcp: HandlerFactory = async () => ({
  path: MCP_PATH,
  handler: async (request) => {
    const server = new Server({ name: "bare", version: "1" }, { capabilities: { tools: {} }, jsonSchemaValidator: NO_FORM });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [NOOP] }));
    server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: "{}" }], structuredContent: {} }));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    return transport.handleRequest(request);
  },
});

/** node:http and the adapter alone: what any handler pays before it starts, answering the bare server's bytes. */
export const emptyMcp: HandlerFactory = async () => ({
  path: MCP_PATH,
  handler: async () => new Response(NOOP_ANSWER, { headers: SSE_HEADERS }),
});
