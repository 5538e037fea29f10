import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string[]>;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** A real HTTP server on 127.0.0.1 that records every request and answers with `respond`. */
export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  respond: (request: RecordedRequest) => Reply;
  close(): Promise<void>;
}

export async function startRecordingServer(): Promise<RecordingServer> {
  const state: RecordingServer = {
    url: "",
    requests: [],
    respond: () => ({ json: { ok: true } }),
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const query: Record<string, string[]> = {};
      for (const [key, value] of url.searchParams) (query[key] ??= []).push(value);
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: url.pathname,
        query,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      state.requests.push(recorded);
      const reply = state.respond(recorded);
      const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? "");
      res.writeHead(reply.status ?? 200, {
        "content-type": reply.json !== undefined ? "application/json" : "text/plain",
        ...reply.headers,
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
