import type http from "node:http";
import { Client, type ClientOptions } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createConsoleApi, type ConsoleApi } from "@/lib/api";
import type { McpApiOptions } from "@/lib/api/mcp";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import type { SqliteServices } from "@/lib/services";
import { testServices } from "./services";

export interface McpTestServer {
  services: SqliteServices;
  api: ConsoleApi;
  /** The MCP endpoint's URL. */
  url: string;
  base: string;
  server: http.Server;
  /** An SDK client connected to the endpoint, with `token` as its bearer token when given. */
  connect(options?: { token?: string; capabilities?: ClientOptions["capabilities"] }): Promise<Client>;
  /** An operator's decision through the REST approvals API (the local operator unless a token is given). */
  decide(approvalId: string, body: Record<string, unknown>, token?: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The console's MCP endpoint and approvals REST API on a real socket on 127.0.0.1, over services on a
 * real SQLite file (fresh ones unless `existing` is given).
 */
export async function startMcpServer(
  options: { env?: Record<string, string>; existing?: SqliteServices; mcp?: McpApiOptions } = {},
): Promise<McpTestServer> {
  const services = options.existing ?? testServices({ AGENT_STREAM_DELAY_MS: "0", ...options.env });
  const api = createConsoleApi(services, { mcp: { tasks: { pollIntervalMs: 50 }, ...options.mcp } });
  const server = createNodeServer([
    { method: "POST", path: "/api/mcp", handler: api.mcp.post as WebHandler },
    { method: "GET", path: "/api/mcp", handler: api.mcp.get as WebHandler },
    { method: "DELETE", path: "/api/mcp", handler: api.mcp.delete as WebHandler },
    { method: "POST", path: "/api/approvals/[id]/decision", handler: api.approvals.decide as WebHandler },
  ]);
  const base = await listenLocal(server);
  const url = `${base}/api/mcp`;
  const clients: Client[] = [];
  return {
    services,
    api,
    url,
    base,
    server,
    async connect({ token, capabilities } = {}) {
      const client = new Client({ name: "test-client", version: "1.0.0" }, { capabilities: capabilities ?? {} });
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      clients.push(client);
      return client;
    },
    decide: (approvalId, body, token) =>
      fetch(`${base}/api/approvals/${encodeURIComponent(approvalId)}/decision`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(body),
      }),
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!options.existing) services.close();
    },
  };
}
