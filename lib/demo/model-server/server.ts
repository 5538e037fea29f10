import http from "node:http";
import type { AddressInfo } from "node:net";
import { isFailure, type RecordedRequest, type Responder, type ScriptedReply, type WireFormat } from "./script";

/** Request bodies larger than this are refused (a scripted server has no use for them). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface ScriptedModelServerOptions {
  /** The wire formats served; each answers the paths it matches. */
  formats: readonly WireFormat[];
  /** Answers requests when the script queue is empty; without one such a request gets a 500. */
  responder?: Responder;
  /** Port on 127.0.0.1 (0: any free port). */
  port?: number;
}

/**
 * A model provider on loopback that speaks the providers' wire formats and answers from a script:
 * the tests point the official SDKs at it, and the offline demo agents use it with the demo
 * responder. Replies queued with `script()` are used first, in order, whatever the format.
 */
export class ScriptedModelServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ScriptedReply[] = [];

  private constructor(
    private readonly server: http.Server,
    private readonly options: ScriptedModelServerOptions,
  ) {}

  static async start(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
    const server = http.createServer();
    const self = new ScriptedModelServer(server, options);
    server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => void self.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
    });
    server.unref();
    return self;
  }

  /** `http://127.0.0.1:PORT` */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Queue replies for the next requests. */
  script(...replies: ScriptedReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Replies queued and not yet used. */
  get pending(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const format = req.method === "POST" ? this.options.formats.find((f) => f.matches(url.pathname)) : undefined;
      if (!format) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: `No scripted model at ${req.method} ${url.pathname}` } }));
        return;
      }
      const body = await readBody(req);
      this.requests.push({ format: format.id, path: url.pathname + url.search, headers: req.headers, body });
      const conversation = format.read(body, url);
      const reply = this.queue.shift() ?? (await this.options.responder?.(conversation, req));
      if (!reply) {
        format.fail({ error: { status: 500, message: "The scripted model server has no reply queued" } }, res);
        return;
      }
      if (isFailure(reply)) format.fail(reply, res);
      else await format.write(reply, conversation, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: error instanceof Error ? error.message : String(error) } }));
    }
  }
}

async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY_BYTES) throw new Error("Request body too large");
    parts.push(part);
  }
  const text = Buffer.concat(parts).toString("utf8");
  const value: unknown = text ? JSON.parse(text) : {};
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("Request body must be a JSON object");
  return value as Record<string, unknown>;
}
