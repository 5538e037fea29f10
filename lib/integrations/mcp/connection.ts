import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../../log";
import { AddressNotAllowed, type OutboundGuard } from "../../net";
import type { McpSecrets, McpTarget } from "./client-target";
import { openTransport, type OpenedTransport } from "./client-transport";
import { McpServerUnreachable } from "./import-errors";
import { listRemoteTools, type RemoteToolList } from "./list-remote-tools";

export interface McpConnectionOptions {
  target: McpTarget;
  secrets?: McpSecrets;
  /** Every HTTP request of the connection goes through it. */
  outbound: OutboundGuard;
  logger: Logger;
  /** Names the connection in the log (the source's id). */
  label: string;
  /** The handshake's and a listing's time limit, ms (default 30 s). */
  requestTimeoutMs?: number;
  /** A stdio server that stops is started again after `baseMs`, doubled per failed start up to `maxMs`. */
  backoff?: { baseMs: number; maxMs: number };
  /** A process that ran at least this long before it stopped restarts from the base delay again (default 10 s). */
  stableMs?: number;
  /** Called with a reason when the connection fails, and with null when it works again. */
  onStatus?: (error: string | null) => void;
}

export type ConnectionState = "idle" | "connecting" | "connected" | "restarting" | "closed";

/** Where a connection failed: before the server could see the request (safe to send again), or after. */
type Loss = "not_delivered" | "lost";

const CALL_TIMEOUT_MS = 15 * 60_000;
const VERSION = "0.1.0";

/**
 * A managed connection to one MCP server. It connects on first use; a failed or lost connection is
 * dropped and made again by the next call (a request the server cannot have seen, such as one
 * refused for an expired session, is sent once more on the new connection). A stdio server's
 * process is supervised: when it stops, it is started again with exponential backoff until it
 * runs or the connection is closed. `notifications/tools/list_changed` calls `onToolsChanged`.
 */
export class McpConnection {
  state: ConnectionState = "idle";
  /** Why the connection last failed, until it works again. */
  lastError: string | undefined;
  /** How many times the connection was made again after it was lost (a stdio process started again, say). */
  restarts = 0;
  /** Set by whoever owns the connection: the server said its tool list changed. */
  onToolsChanged: (() => void) | undefined;
  /** Set by whoever owns the connection: called with a reason when it fails, with null when it works again. */
  onStatus: ((error: string | null) => void) | undefined;

  private client: Client | undefined;
  private opened: OpenedTransport | undefined;
  private pending: Promise<Client> | undefined;
  private closed = false;
  private failures = 0;
  private startedAt = 0;
  private supervising = false;
  private everConnected = false;
  private wake: (() => void) | undefined;
  /** Read the server's tools again once connected (it was away). */
  private readToolsOnConnect = false;

  constructor(private readonly options: McpConnectionOptions) {
    this.onStatus = options.onStatus;
  }

  /** The stdio server's process id while it runs. */
  get pid(): number | null {
    return this.opened?.pid() ?? null;
  }

  /** The server's name and version from the handshake, once connected. */
  get server(): { name: string; version: string; title?: string } | undefined {
    const info = this.client?.getServerVersion();
    return info && { name: info.name, version: info.version, ...(info.title && { title: info.title }) };
  }

  /** The connected client, connecting first if needed. Throws McpServerUnreachable. */
  async connected(signal?: AbortSignal): Promise<Client> {
    if (this.closed) throw new McpServerUnreachable("The connection to the MCP server was closed");
    if (this.client) return this.client;
    this.pending ??= this.connect().finally(() => (this.pending = undefined));
    if (!signal) return this.pending;
    signal.throwIfAborted();
    return Promise.race([
      this.pending,
      new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
    ]);
  }

  /** Every tool of the server (see listRemoteTools). Throws McpServerUnreachable, McpOptionsError. */
  async listTools(): Promise<RemoteToolList> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.connected();
      try {
        return await listRemoteTools(client, { timeoutMs: this.options.requestTimeoutMs });
      } catch (error) {
        const loss = lossOf(error);
        if (!loss) throw error;
        this.drop(client, this.describe(error));
        // A listing changes nothing on the server: sending it again is always safe.
        if (attempt === 0) continue;
        throw new McpServerUnreachable(`The MCP server cannot be reached: ${this.describe(error)}`);
      }
    }
  }

  /**
   * Call a tool on the server. A request the server cannot have seen is sent again once on a new
   * connection. Throws McpServerUnreachable when no connection can be made, ConnectionLost when
   * it broke during the call, and the client's McpError for a JSON-RPC error.
   */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.connected(signal);
      try {
        return (await client.callTool({ name, arguments: args }, undefined, { signal, timeout: CALL_TIMEOUT_MS })) as CallToolResult;
      } catch (error) {
        if (signal.aborted) throw error;
        const loss = lossOf(error);
        if (!loss) throw error;
        this.drop(client, this.describe(error));
        if (loss === "not_delivered" && attempt === 0) continue;
        throw loss === "not_delivered"
          ? new McpServerUnreachable(`The MCP server cannot be reached: ${this.describe(error)}`)
          : new ConnectionLost(this.describe(error));
      }
    }
  }

  /** Stop: end the session (HTTP) or the process (stdio), and stop restarting it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.state = "closed";
    this.wake?.();
    const client = this.client;
    const opened = this.opened;
    this.client = undefined;
    await this.pending?.catch(() => {});
    await shutdown(client, opened);
  }

  private async connect(): Promise<Client> {
    this.state = "connecting";
    const { target, secrets, outbound, logger, label } = this.options;
    const opened = openTransport(target, secrets, outbound);
    const client = new Client({ name: "agui-console", version: VERSION }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.onToolsChanged?.());
    client.onclose = () => this.closedUnderneath(client);
    // Transport errors also reach the pending request, which reports them; this keeps them off stderr.
    client.onerror = (error) => {
      logger.debug("mcp transport error", { source: label, error: error.message });
      // The server's own event stream (its notifications) ended and the SDK could not resume it
      // (its two tries, see openTransport): the server went away, or its session did.
      if (target.transport === "http" && error.message.startsWith("Maximum reconnection attempts")) this.streamLost(client);
    };
    try {
      this.startedAt = Date.now();
      await client.connect(opened.transport, { timeout: this.options.requestTimeoutMs ?? 30_000 });
    } catch (error) {
      await shutdown(client, opened);
      const tail = this.redact(opened.stderr?.lastLine() ?? "");
      const reason = `${this.describe(error)}${tail ? ` (stderr: ${tail})` : ""}`;
      this.fail(reason);
      logger.warn("mcp server connection failed", { source: label, transport: target.transport, reason });
      // A process that ran before is kept running; one that never started is the importer's to report.
      if (target.transport === "stdio" && this.everConnected) setImmediate(() => this.supervise());
      throw new McpServerUnreachable(`The MCP server cannot be reached: ${reason}`);
    }
    if (this.closed) {
      await shutdown(client, opened);
      throw new McpServerUnreachable("The connection to the MCP server was closed");
    }
    this.client = client;
    this.opened = opened;
    this.state = "connected";
    if (this.everConnected) this.restarts++;
    this.everConnected = true;
    if (this.lastError !== undefined) this.onStatus?.(null);
    this.lastError = undefined;
    if (this.readToolsOnConnect) {
      // Back after its stream ended: the server may have other tools now.
      this.readToolsOnConnect = false;
      setImmediate(() => this.onToolsChanged?.());
    }
    logger.info("mcp server connected", {
      source: label,
      transport: target.transport,
      server: client.getServerVersion()?.name,
      pid: opened.pid(),
    });
    return client;
  }

  /** The transport closed without us asking: a stdio process that exited, say. */
  private closedUnderneath(client: Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.state = "idle";
    if (this.options.target.transport !== "stdio") return;
    const tail = this.redact(this.opened?.stderr?.lastLine() ?? "");
    this.fail(`The server's process stopped${tail ? ` (stderr: ${tail})` : ""}`);
    if (Date.now() - this.startedAt >= (this.options.stableMs ?? 10_000)) this.failures = 0;
    this.supervise();
  }

  /**
   * An HTTP server's event stream ended: drop the connection and make it again, waiting longer
   * after each attempt that fails, so that its notifications reach the console again without
   * waiting for a call; once connected, its tools are read again.
   */
  private streamLost(client: Client): void {
    if (this.client !== client || this.closed) return;
    this.drop(client, "The server's event stream ended");
    this.readToolsOnConnect = true;
    this.failures = 0;
    this.supervise();
  }

  /** Start a stopped stdio server again (or reach an HTTP server whose stream ended), waiting longer after each attempt that fails, until one works. */
  private supervise(): void {
    if (this.supervising || this.closed || this.client) return;
    this.supervising = true;
    void (async () => {
      try {
        while (!this.closed && !this.client) {
          const { baseMs, maxMs } = this.options.backoff ?? { baseMs: 500, maxMs: 30_000 };
          const delayMs = Math.min(maxMs, baseMs * 2 ** Math.min(this.failures, 30));
          this.failures++;
          this.state = "restarting";
          this.options.logger.warn("mcp server process restarting", { source: this.options.label, delayMs, attempt: this.failures });
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, delayMs);
            timer.unref();
            this.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wake = undefined;
          if (this.closed || this.client) break;
          await this.connected().catch(() => {});
        }
      } finally {
        this.supervising = false;
      }
    })();
  }

  /** Forget a connection that failed under a request, closing what is left of it. */
  private drop(client: Client, reason: string): void {
    if (this.client !== client) return;
    const opened = this.opened;
    this.client = undefined;
    this.opened = undefined;
    this.state = "idle";
    this.fail(reason);
    this.options.logger.warn("mcp server connection lost", { source: this.options.label, reason });
    void shutdown(client, opened);
  }

  /** An error's message with the connection's secret values blanked: a server may echo them back. */
  private describe(error: unknown): string {
    return this.redact(describe(error));
  }

  private redact(text: string): string {
    const { headers = {}, env = {} } = this.options.secrets ?? {};
    const secrets = [...Object.values(headers), ...Object.values(env)].flatMap((value) => [value, value.replace(/^Bearer\s+/i, "")]);
    return secrets.filter((secret) => secret.length >= 4).reduce((out, secret) => out.split(secret).join("***"), text);
  }

  private fail(reason: string): void {
    const message = reason.slice(0, 1000);
    if (this.lastError !== message) this.onStatus?.(message);
    this.lastError = message;
  }
}

/** The connection broke while a call ran: the server may or may not have run it. */
export class ConnectionLost extends Error {
  override readonly name = "ConnectionLost";
  constructor(readonly reason: string) {
    super(`The connection to the MCP server was lost during the call: ${reason}`);
  }
}

/** Whether an error means the connection is gone, and whether the server can have seen the request. */
function lossOf(error: unknown): Loss | undefined {
  // An HTTP server that forgot our session (it restarted, say) answers 404 without running anything.
  if (error instanceof StreamableHTTPError) return error.code === 404 ? "not_delivered" : "lost";
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed ? "lost" : undefined;
  if (error instanceof AddressNotAllowed) return "not_delivered";
  if (!(error instanceof Error)) return undefined;
  if (error.message === "Not connected") return "not_delivered";
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "UND_ERR_CONNECT_TIMEOUT") return "not_delivered";
  if (error instanceof TypeError && error.message === "fetch failed") return "lost";
  return undefined;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`.slice(0, 1000);
}

/** Close a client and what it runs on, quietly; an HTTP session is ended first (DELETE), briefly. */
async function shutdown(client: Client | undefined, opened: OpenedTransport | undefined): Promise<void> {
  const transport = opened?.transport;
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    await Promise.race([transport.terminateSession().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  }
  await (client ? client.close() : transport?.close())?.catch(() => {});
}
