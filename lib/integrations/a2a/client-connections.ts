import type { SourceStore } from "../../db/sources";
import type { Logger } from "../../log";
import type { OutboundGuard } from "../../net";
import { SourceNotFound } from "../../sources/errors";
import { SingleFlight } from "../../sources/single-flight";
import type { ToolRegistry } from "../../tools/registry";
import { parseSecrets } from "../mcp/client-target";
import { A2AConnection, WaitingTasks } from "./client-connection";
import { A2AOptionsError } from "./import-errors";
import type { A2ABinding } from "./plan-a2a-tools";
import { remoteSkillHandler } from "./remote-tool-handler";

/** What an A2A import keeps in its source's options (never a secret). */
export interface A2AStoredOptions {
  prefix?: string;
  /** An admin's allowance of private addresses for this source. */
  allow?: string[];
  timeoutMs?: number;
  /** The card as the source list shows it. */
  card?: unknown;
}

/**
 * The console's clients of imported A2A agents, one per A2A source: built from the card the source
 * keeps (no request until a call), replaced by a refresh, dropped when the source goes. The tasks a
 * source's calls left waiting outlive its connections.
 */
export class A2AConnections {
  private readonly open = new Map<string, A2AConnection>();
  /** Connections being made from a source's row: concurrent first uses share one. */
  private readonly opening = new SingleFlight<A2AConnection>();
  private readonly waiting = new Map<string, WaitingTasks>();

  constructor(private readonly options: { sources: SourceStore; outbound: OutboundGuard; logger: Logger }) {}

  /** The tasks a source's calls left waiting for input. */
  waitingFor(sourceId: string): WaitingTasks {
    let tasks = this.waiting.get(sourceId);
    if (!tasks) this.waiting.set(sourceId, (tasks = new WaitingTasks()));
    return tasks;
  }

  /** Keep `connection` as the source's (an import or a refresh that just read the card). */
  adopt(sourceId: string, connection: A2AConnection): void {
    this.open.set(sourceId, connection);
  }

  /** The source's connection, made from its row when there is none. Throws SourceNotFound, A2AOptionsError. */
  async forSource(sourceId: string): Promise<A2AConnection> {
    return this.open.get(sourceId) ?? this.opening.run(sourceId, () => this.fromRow(sourceId));
  }

  private async fromRow(sourceId: string): Promise<A2AConnection> {
    const { sources } = this.options;
    const [source, cardText, credentials] = await Promise.all([
      sources.get(sourceId),
      sources.document(sourceId),
      sources.credentials(sourceId),
    ]);
    // A refresh may have handed one over while the row was read.
    const adopted = this.open.get(sourceId);
    if (adopted) return adopted;
    if (!source || source.kind !== "a2a") throw new SourceNotFound(sourceId);
    if (!cardText) throw new A2AOptionsError(`The A2A source ${sourceId} keeps no agent card; refresh it`);
    const connection = new A2AConnection({
      baseUrl: source.location,
      cardText,
      secrets: parseSecrets(credentials?.secret),
      outbound: this.options.outbound.forSource(source.options),
      waiting: this.waitingFor(sourceId),
    });
    this.open.set(sourceId, connection);
    return connection;
  }

  /** Forget the source's connection and waiting tasks. */
  async close(sourceId: string): Promise<void> {
    this.open.delete(sourceId);
    this.waiting.delete(sourceId);
  }
}

/**
 * Let the registry rebuild the handlers of A2A tools after a restart: each calls its source's
 * connection from the pool. A binding that names no skill leaves the tool without a handler (its
 * calls fail, the reason is in the log).
 */
export function registerA2ABinder(registry: ToolRegistry, pool: A2AConnections, logger: Logger): void {
  registry.registerBinder("a2a", (tool) => {
    const binding = tool.binding as Partial<A2ABinding> | null;
    if (typeof binding?.skillId !== "string" || typeof binding.typed !== "boolean" || !tool.sourceId) {
      logger.error("a2a tool has an unusable binding", { tool: tool.name });
      return undefined;
    }
    const sourceId = tool.sourceId;
    return remoteSkillHandler(() => pool.forSource(sourceId), { skillId: binding.skillId, typed: binding.typed });
  });
}
