import type { SourceStore } from "../../db/sources";
import type { Logger } from "../../log";
import type { OutboundGuard } from "../../net";
import { SourceNotFound } from "../../sources/errors";
import { SingleFlight } from "../../sources/single-flight";
import type { ToolRegistry } from "../../tools/registry";
import { parseSecrets, parseStoredOptions, type McpSecrets, type McpTarget } from "./client-target";
import { McpConnection, type McpConnectionOptions } from "./connection";
import { McpOptionsError } from "./import-errors";
import type { McpBinding } from "./plan-mcp-tools";
import { remoteToolHandler } from "./remote-tool-handler";

export interface McpConnectionsOptions {
  sources: SourceStore;
  outbound: OutboundGuard;
  logger: Logger;
  /** Passed to every connection (tests shorten the restart backoff). */
  connection?: Pick<McpConnectionOptions, "backoff" | "stableMs" | "requestTimeoutMs">;
  /** How long after a `tools/list_changed` the source is refreshed (several in a row make one refresh), ms. */
  listChangedDelayMs?: number;
}

/** What the pool knows about a source's connection right now. */
export interface McpConnectionStatus {
  state: McpConnection["state"];
  lastError?: string;
  restarts: number;
  pid?: number;
}

/**
 * The console's open MCP connections, one per MCP source: made from the source's row when the
 * console starts (connectAll) or on first use, handed over by an import, closed when the source goes. A connection's
 * failures and recoveries are written to its source's status; `tools/list_changed` from its
 * server refreshes the source through the `refresh` hook.
 */
export class McpConnections {
  private readonly open = new Map<string, McpConnection>();
  /** Connections being made from a source's row: concurrent first uses share one. */
  private readonly opening = new SingleFlight<McpConnection>();
  private readonly changeTimers = new Map<string, NodeJS.Timeout>();
  /** Refreshes a source's tools from its server; set by whoever wires the pool (see startMcpImports). */
  refresh: ((sourceId: string) => Promise<unknown>) | undefined;

  constructor(private readonly options: McpConnectionsOptions) {}

  /** A connection to a server that belongs to no source yet (an import, a connection test). */
  connect(target: McpTarget, secrets: McpSecrets | undefined, outbound: OutboundGuard, label = "new"): McpConnection {
    return new McpConnection({ ...this.options.connection, target, secrets, outbound, logger: this.options.logger, label });
  }

  /** Keep `connection` as the source's (an import that just connected), replacing any other. */
  adopt(sourceId: string, connection: McpConnection): void {
    const previous = this.open.get(sourceId);
    if (previous && previous !== connection) void previous.close();
    this.watch(sourceId, connection);
    this.open.set(sourceId, connection);
  }

  /** The source's connection, made from its row when there is none. Throws SourceNotFound, McpOptionsError. */
  async forSource(sourceId: string): Promise<McpConnection> {
    return this.open.get(sourceId) ?? this.opening.run(sourceId, () => this.fromRow(sourceId));
  }

  private async fromRow(sourceId: string): Promise<McpConnection> {
    const [source, credentials] = await Promise.all([this.options.sources.get(sourceId), this.options.sources.credentials(sourceId)]);
    // An import or a refresh may have handed one over while the row was read.
    const adopted = this.open.get(sourceId);
    if (adopted) return adopted;
    if (!source || source.kind !== "mcp") throw new SourceNotFound(sourceId);
    const stored = parseStoredOptions(source.options);
    if (!stored) throw new McpOptionsError(`The MCP source ${sourceId} has no usable connection settings; import it again`);
    const secrets = parseSecrets(credentials?.secret);
    const connection = this.connect(stored.target, secrets, this.options.outbound.widen(stored.allow ?? []), sourceId);
    this.adopt(sourceId, connection);
    return connection;
  }

  /**
   * Connect every MCP source now (a console starting): their stdio servers run under supervision
   * from the start, and each server can say its tools changed before anyone calls it. A source that
   * cannot be reached gets the reason as its status; resolves once every attempt has ended.
   */
  async connectAll(): Promise<void> {
    const sources = (await this.options.sources.list()).filter((source) => source.kind === "mcp" && source.status !== "importing");
    await Promise.all(
      sources.map(async (source) => {
        try {
          await (await this.forSource(source.id)).connected();
        } catch (error) {
          this.options.logger.warn("could not connect an mcp source at start", { source: source.id, error: String(error) });
        }
      }),
    );
  }

  status(sourceId: string): McpConnectionStatus | undefined {
    const connection = this.open.get(sourceId);
    if (!connection) return undefined;
    return {
      state: connection.state,
      restarts: connection.restarts,
      ...(connection.lastError && { lastError: connection.lastError }),
      ...(connection.pid && { pid: connection.pid }),
    };
  }

  /** Close the source's connection (its process ends, its session is ended); nothing when there is none. */
  async close(sourceId: string): Promise<void> {
    const timer = this.changeTimers.get(sourceId);
    if (timer) clearTimeout(timer);
    this.changeTimers.delete(sourceId);
    const connection = this.open.get(sourceId);
    this.open.delete(sourceId);
    await connection?.close();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.close(id)));
  }

  private watch(sourceId: string, connection: McpConnection): void {
    connection.onToolsChanged = () => {
      if (this.open.get(sourceId) !== connection) return;
      const timer = this.changeTimers.get(sourceId);
      if (timer) clearTimeout(timer);
      const next = setTimeout(() => {
        this.changeTimers.delete(sourceId);
        this.options.logger.info("mcp server says its tools changed: refreshing", { source: sourceId });
        this.refresh?.(sourceId).catch((error: unknown) =>
          this.options.logger.warn("mcp refresh after tools/list_changed failed", { source: sourceId, error: String(error) }),
        );
      }, this.options.listChangedDelayMs ?? 250);
      next.unref();
      this.changeTimers.set(sourceId, next);
    };
    // The source's status says whether its server can be reached, and why not.
    const report = async (error: string | null) => {
      if (this.open.get(sourceId) !== connection) return;
      const source = await this.options.sources.get(sourceId);
      if (!source || source.status === "refreshing") return;
      if (error === null && source.status !== "error") return;
      await this.options.sources.update(
        sourceId,
        error === null ? { status: "ok", statusMessage: null } : { status: "error", statusMessage: error },
      );
    };
    connection.onStatus = (error) =>
      void report(error).catch((failure: unknown) =>
        this.options.logger.warn("could not record an mcp source's status", { source: sourceId, error: String(failure) }),
      );
  }
}

/**
 * Let the registry rebuild the handlers of MCP tools after a restart: each calls its source's
 * connection from the pool (made on first use). A binding that does not name a remote tool leaves
 * the tool without a handler (its calls fail, the reason is in the log).
 */
export function registerMcpBinder(registry: ToolRegistry, pool: McpConnections, logger: Logger): void {
  registry.registerBinder("mcp", (tool) => {
    const remoteName = (tool.binding as Partial<McpBinding> | null)?.remoteName;
    if (typeof remoteName !== "string" || !tool.sourceId) {
      logger.error("mcp tool has an unusable binding", { tool: tool.name });
      return undefined;
    }
    const sourceId = tool.sourceId;
    return remoteToolHandler(() => pool.forSource(sourceId), { remoteName, idempotent: tool.policy.idempotent });
  });
}
