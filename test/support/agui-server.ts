import type http from "node:http";
import { consoleApi } from "@/lib/api";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import type { SqliteServices } from "@/lib/services";
import { testServices } from "./services";

export interface AguiTestServer {
  services: SqliteServices;
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

/** The console's AG-UI and history handlers over real HTTP on 127.0.0.1, on a real SQLite file. */
export async function startAguiServer(env: Record<string, string> = {}, existing?: SqliteServices): Promise<AguiTestServer> {
  const services = existing ?? testServices({ AGENT_STREAM_DELAY_MS: "0", ...env });
  const { agui: endpoint, threads: past } = consoleApi(services);
  const server = createNodeServer([
    { method: "GET", path: "/api/agui", handler: endpoint.listAgents as WebHandler },
    { method: "POST", path: "/api/agui", handler: endpoint.run as WebHandler },
    { method: "POST", path: "/api/agui/[agent]", handler: endpoint.run as WebHandler },
    { method: "GET", path: "/api/threads", handler: past.listThreads as WebHandler },
    { method: "GET", path: "/api/threads/[id]", handler: past.getThread as WebHandler },
    { method: "GET", path: "/api/runs/[id]/events", handler: past.runEvents as WebHandler },
    { method: "GET", path: "/api/runs/[id]/stream", handler: past.runStream as WebHandler },
  ]);
  const url = await listenLocal(server);
  return {
    services,
    url,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!existing) services.close();
    },
  };
}
