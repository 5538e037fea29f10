import { refreshSource } from "../../sources/refresh-source";
import type { SourceStore, SourceSummary } from "../../db/sources";
import type { Logger } from "../../log";
import type { OutboundGuard } from "../../net";
import { DuplicateTool } from "../../tools/errors";
import type { ToolRegistry } from "../../tools/registry";
import type { RegisteredTool } from "../../tools/spec";
import { parseSecrets, secretsRef } from "../mcp/client-target";
import { openA2AConnection, type A2AConnection, type A2ASecrets } from "./client-connection";
import { A2AConnections, type A2AStoredOptions } from "./client-connections";
import { planA2ATools, type A2ACardSummary, type A2APlan } from "./plan-a2a-tools";
import { remoteSkillHandler } from "./remote-tool-handler";

/** What importing and refreshing A2A agents needs from the console's services (`Services` fits). */
export interface A2AImportDeps {
  registry: ToolRegistry;
  sources: SourceStore;
  logger: Logger;
  /** The guard every request goes through (widened by the caller for an admin's allowance). */
  outbound: OutboundGuard;
  a2aAgents: A2AConnections;
}

export interface A2AImportInput {
  /** The agent's base URL (its card is at /.well-known/agent-card.json under it). */
  url: string;
  /** The source's name; defaults to the card's. */
  name?: string;
  /** Headers sent only to the agent's origin (Authorization...): stored, never listed. */
  secrets?: A2ASecrets;
  prefix?: string;
  /** An admin's allowance of private addresses, kept with the source. */
  allow?: string[];
  /** The call time limit of every tool, ms. */
  timeoutMs?: number;
}

/** One skill as the connection test shows it. */
export interface A2AToolPreview {
  skillId: string;
  toolName: string;
  title: string;
  description: string;
  /** The card gave the skill's argument schema; otherwise the tool takes `{message}`. */
  typed: boolean;
}

export interface A2ATestResult {
  card: A2ACardSummary;
  location: string;
  tools: A2AToolPreview[];
  warnings: string[];
}

export interface A2AImportResult {
  source: SourceSummary;
  tools: RegisteredTool[];
  warnings: string[];
}

/** Fetch the agent's card and say what importing would register. Registers nothing. Throws A2AAgentUnreachable, A2AOptionsError. */
export async function testA2AAgent(deps: A2AImportDeps, input: A2AImportInput): Promise<A2ATestResult> {
  const connection = await openA2AConnection({ url: input.url, secrets: input.secrets, outbound: deps.outbound });
  const plan = await readPlan(connection, input);
  return {
    card: plan.card,
    location: connection.baseUrl,
    tools: plan.tools.map((tool) => ({
      skillId: tool.skillId,
      toolName: tool.spec.name,
      title: tool.spec.title ?? tool.spec.name,
      description: tool.spec.description,
      typed: tool.typed,
    })),
    warnings: plan.warnings,
  };
}

/**
 * Import an agent's skills as a source, all or nothing: on any error no tool and no source row is
 * left. The card is kept on the source (to rebuild the client after a restart), the secret headers
 * in its secret column, never returned or logged. Throws A2AAgentUnreachable, A2AOptionsError,
 * DuplicateTool or ToolDefinitionError.
 */
export async function importA2A(deps: A2AImportDeps, input: A2AImportInput): Promise<A2AImportResult> {
  const secrets = input.secrets?.headers && Object.keys(input.secrets.headers).length ? { headers: input.secrets.headers } : undefined;
  const connection = await openA2AConnection({ url: input.url, secrets, outbound: deps.outbound });
  const plan = await readPlan(connection, input);
  // Say which name is taken before anything is written (addMany would refuse it too).
  const clash = plan.tools.find((tool) => deps.registry.get(tool.spec.name));
  if (clash) throw new DuplicateTool(clash.spec.name);
  const source = await deps.sources.create({
    kind: "a2a",
    name: (input.name ?? plan.card.name).slice(0, 200),
    location: connection.baseUrl,
    authRef: secretsRef(secrets),
    authSecret: secrets ? JSON.stringify(secrets) : null,
    options: storedOptions(input, plan.card) as Record<string, unknown>,
    document: connection.cardText,
  });
  const id = source.id;
  try {
    const tools = await deps.registry.addMany(
      plan.tools.map((tool) => ({
        spec: { ...tool.spec, sourceId: id },
        handler: remoteSkillHandler(() => deps.a2aAgents.forSource(id), { skillId: tool.skillId, typed: tool.typed }),
      })),
    );
    deps.logger.info("a2a source imported", {
      source: id,
      location: source.location,
      tools: tools.length,
      skipped: plan.warnings.length,
      auth: secretsRef(secrets)?.kind ?? "none",
    });
    return { source: (await deps.sources.get(id))!, tools, warnings: plan.warnings };
  } catch (error) {
    await deps.sources.delete(id);
    await deps.a2aAgents.close(id);
    throw error;
  }
}

/**
 * Read the agent's card again and replace the source's tools, keeping what operators set on the
 * tools that remain. One refresh per source runs at a time. On failure the old tools stay, the
 * source's status becomes "error" with the reason, and the error is thrown (as importA2A's, or SourceNotFound).
 */
export function refreshA2ASource(deps: A2AImportDeps, id: string): Promise<A2AImportResult> {
  return refreshSource(deps, id, "a2a", async (source) => {
    const stored = source.options as A2AStoredOptions;
    const connection = await openA2AConnection({
      url: source.location,
      secrets: parseSecrets((await deps.sources.credentials(id))?.secret),
      outbound: deps.outbound,
      waiting: deps.a2aAgents.waitingFor(id),
    });
    const plan = await readPlan(connection, stored);
    return {
      tools: plan.tools.map((tool) => ({
        spec: tool.spec,
        handler: remoteSkillHandler(() => deps.a2aAgents.forSource(id), { skillId: tool.skillId, typed: tool.typed }),
      })),
      warnings: plan.warnings,
      update: { document: connection.cardText, options: { ...stored, card: plan.card } as Record<string, unknown> },
      committed: () => deps.a2aAgents.adopt(id, connection),
    };
  });
}

/** Wire A2A imports into the console: the connection pool, which the binder and the REST handlers share. */
export function startA2AImports(deps: Omit<A2AImportDeps, "a2aAgents" | "registry">): A2AConnections {
  return new A2AConnections({ sources: deps.sources, outbound: deps.outbound, logger: deps.logger });
}

async function readPlan(connection: A2AConnection, options: { prefix?: string; timeoutMs?: number }): Promise<A2APlan> {
  const plan = planA2ATools(connection.card, options);
  // The card is useful only if the console can talk to one of its interfaces: say so at import.
  await connection.connected();
  return plan;
}

function storedOptions(input: A2AImportInput, card: A2ACardSummary): A2AStoredOptions {
  const { prefix, allow, timeoutMs } = input;
  return JSON.parse(
    JSON.stringify({ prefix: prefix || undefined, allow: allow?.length ? allow : undefined, timeoutMs, card }),
  ) as A2AStoredOptions;
}
