import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { INTERNAL_ERROR_MESSAGE } from "./handler";

export type WebHandler = (request: Request, context: { params: Promise<Record<string, string>>; peer?: string }) => Promise<Response>;

export interface NodeRoute {
  method: string;
  /** A path pattern with `[name]` segments, e.g. "/api/agui/[agent]". */
  path: string;
  handler: WebHandler;
}

/**
 * Serve web-standard handlers from a plain node:http server: for tests over a real socket and for
 * benchmarks against the same lib/ code without Next.js. A client disconnect aborts the Request's
 * signal and cancels the response stream.
 */
export function createNodeServer(routes: NodeRoute[]): http.Server {
  const compiled = routes.map((r) => ({ ...r, regex: new RegExp(`^${r.path.replace(/\[(\w+)\]/g, "(?<$1>[^/]+)")}$`) }));
  return http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
    const match = compiled.find((r) => r.method === req.method && r.regex.test(url.pathname));
    if (!match) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: "not_found", message: "No such route" } }));
      return;
    }
    const params = Object.fromEntries(
      Object.entries(match.regex.exec(url.pathname)?.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]),
    );
    const controller = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) controller.abort(new Error("client disconnected"));
    });
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(url, {
      method: req.method,
      headers,
      signal: controller.signal,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
    } as RequestInit);
    let response: Response;
    try {
      response = await match.handler(request, { params: Promise.resolve(params), peer: req.socket.remoteAddress });
    } catch (error) {
      // Handlers from lib/api answer their own errors; this is the last resort, with no details.
      console.error(error);
      res
        .writeHead(500, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: "internal_error", message: INTERNAL_ERROR_MESSAGE } }));
      return;
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    controller.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
      }
      res.end();
    } catch {
      res.destroy();
    }
  });
}

/** Listen on 127.0.0.1 on a free port; resolves with the base URL. */
export async function listenLocal(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
