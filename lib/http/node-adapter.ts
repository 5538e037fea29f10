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
  const refuse = (res: http.ServerResponse, status: number, code: string, message: string) =>
    void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: { code, message } }));
  const serve = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    // A Host header that makes no URL (`[::1`, `a:1:2`) still reaches the handler, which judges the
    // Host itself (421); the URL then names localhost, as Next's request.url does.
    const url = requestUrl(req.url ?? "/", req.headers.host);
    const match = url && compiled.find((r) => r.method === req.method && r.regex.test(url.pathname));
    if (!url || !match) return refuse(res, 404, "not_found", "No such route");
    let params: Record<string, string>;
    try {
      params = Object.fromEntries(Object.entries(match.regex.exec(url.pathname)?.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
    } catch {
      // As scripts/server.mjs answers the built console's malformed paths (%E0, %ZZ): before any handler.
      return refuse(res, 400, "invalid_path", "The path has a malformed percent-encoding");
    }
    const controller = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) controller.abort(new Error("client disconnected"));
    });
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new AdapterRequest(
      url,
      {
        method: req.method,
        headers,
        ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
      } as RequestInit,
      controller.signal,
    );
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
  };
  // node:http ignores what a listener returns; serve() answers its own failures.
  return http.createServer((req, res) => void serve(req, res));
}

/**
 * A Request whose `signal` is the adapter's own, aborted when the client goes away. Handed to
 * `new Request` as `init.signal`, undici would follow it through a WeakRef and a
 * FinalizationRegistry entry made per request, and a WeakRef keeps its target alive through every
 * young-generation collection: each request, with all it reaches, would be promoted to the old
 * generation. Under the MCP bench's load (`npm run bench -- mcp`) both the console's handler and the
 * bare SDK server served 10-70% more calls a second without it (two runs each way).
 */
class AdapterRequest extends Request {
  readonly #signal: AbortSignal;

  constructor(url: URL, init: RequestInit, signal: AbortSignal) {
    super(url, init);
    this.#signal = signal;
  }

  override get signal(): AbortSignal {
    return this.#signal;
  }
}

/** The request's URL on its Host, or on localhost when the Host makes no URL; undefined when the target makes none. */
function requestUrl(target: string, host: string | undefined): URL | undefined {
  for (const base of [`http://${host ?? "127.0.0.1"}`, "http://localhost"]) if (URL.canParse(target, base)) return new URL(target, base);
  return undefined;
}

/** Listen on 127.0.0.1 on a free port; resolves with the base URL. */
export async function listenLocal(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
