import type http from "node:http";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { createConsoleApi, type ConsoleApi } from "@/lib/api";
import type { A2AApiOptions } from "@/lib/api/a2a";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import type { SqliteServices } from "@/lib/services";
import { testServices } from "./services";

export interface A2ATestServer {
  services: SqliteServices;
  api: ConsoleApi;
  /** The console's base URL (the card is under it). */
  base: string;
  server: http.Server;
  /** An @a2a-js/sdk 1.3 client made from the console's card, sending `token` as its bearer token when given. */
  connect(options?: { token?: string }): Promise<Client>;
  /** An operator's decision through the REST approvals API (the local operator unless a token is given). */
  decide(approvalId: string, body: Record<string, unknown>, token?: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The console's A2A card and endpoint and the approvals REST API on a real socket on 127.0.0.1,
 * over services on a real SQLite file (fresh ones unless `existing` is given).
 */
export async function startA2AServer(
  options: { env?: Record<string, string>; existing?: SqliteServices; a2a?: A2AApiOptions } = {},
): Promise<A2ATestServer> {
  const services = options.existing ?? testServices({ AGENT_STREAM_DELAY_MS: "0", ...options.env });
  const api = createConsoleApi(services, { a2a: options.a2a });
  const server = createNodeServer([
    { method: "GET", path: "/.well-known/agent-card.json", handler: api.a2a.card as WebHandler },
    { method: "POST", path: "/api/a2a", handler: api.a2a.post as WebHandler },
    { method: "GET", path: "/api/a2a", handler: api.a2a.get as WebHandler },
    { method: "POST", path: "/api/approvals/[id]/decision", handler: api.approvals.decide as WebHandler },
  ]);
  const base = await listenLocal(server);
  return {
    services,
    api,
    base,
    server,
    async connect({ token } = {}) {
      const fetchImpl: typeof fetch = (input, init) => {
        const headers = new Headers(init?.headers);
        if (token) headers.set("authorization", `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      };
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
          transports: [new JsonRpcTransportFactory({ fetchImpl })],
        }),
      );
      return factory.createFromUrl(base);
    },
    decide: (approvalId, body, token) =>
      fetch(`${base}/api/approvals/${encodeURIComponent(approvalId)}/decision`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(body),
      }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!options.existing) services.close();
    },
  };
}
