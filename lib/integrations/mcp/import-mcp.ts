import { refreshSource } from "../../sources/refresh-source";
import type { SourceStore, SourceSummary } from "../../db/sources";
import type { Logger } from "../../log";
import type { OutboundGuard } from "../../net";
import { DuplicateTool } from "../../tools/errors";
import type { ToolRegistry } from "../../tools/registry";
import type { Effects, RegisteredTool } from "../../tools/spec";
import { parseStoredOptions, secretsRef, targetLocation, type McpSecrets, type McpStoredOptions, type McpTarget } from "./client-target";
import type { McpConnection } from "./connection";
import { McpConnections } from "./connections";
import { McpOptionsError } from "./import-errors";
import { planMcpTools, type McpPlan } from "./plan-mcp-tools";
import { remoteToolHandler } from "./remote-tool-handler";

/** What importing and refreshing MCP servers needs from the console's services (`Services` fits). */
export interface McpImportDeps {
  registry: ToolRegistry;
  sources: SourceStore;
  logger: Logger;
  /** The guard HTTP connections go through (widened by the caller for an admin's allowance). */
  outbound: OutboundGuard;
  mcp: McpConnections;
}

export interface McpImportInput {
  /** The source's name; defaults to the server's title or name. */
  name?: string;
  target: McpTarget;
  /** Headers (HTTP) or environment variables (stdio) kept secret: stored for the connection, never listed. */
  secrets?: McpSecrets;
  /** Put before every local tool name. */
  prefix?: string;
  /** An admin's allowance of private addresses, kept with the source (the caller widens `outbound` with it). */
  allow?: string[];
  /** The call time limit of every tool, ms. */
  timeoutMs?: number;
}

/** One remote tool as the connection test shows it. */
export interface McpToolPreview {
  remoteName: string;
  toolName: string;
  title: string;
  description: string;
  effects: Effects;
  confirm: boolean;
}

export interface McpTestResult {
  server: { name: string; version: string; title?: string };
  location: string;
  tools: McpToolPreview[];
  warnings: string[];
}

export interface McpImportResult {
  source: SourceSummary;
  tools: RegisteredTool[];
  warnings: string[];
}

/**
 * Connect to the server, read its tools and say what importing would register, then disconnect.
 * Registers nothing. Throws McpServerUnreachable or McpOptionsError.
 */
export async function testMcpServer(deps: McpImportDeps, input: McpImportInput): Promise<McpTestResult> {
  await assertReachable(input.target, deps.outbound);
  const connection = deps.mcp.connect(input.target, input.secrets, deps.outbound, "test");
  try {
    const { plan, server } = await readServer(connection, input);
    return {
      server,
      location: targetLocation(input.target),
      tools: plan.tools.map((tool) => ({
        remoteName: tool.remoteName,
        toolName: tool.spec.name,
        title: tool.spec.title ?? tool.spec.name,
        description: tool.spec.description,
        effects: tool.effects,
        confirm: tool.confirm,
      })),
      warnings: plan.warnings,
    };
  } finally {
    await connection.close();
  }
}

/**
 * Import a server's tools as a source, all or nothing: on any error no tool and no source row is
 * left and the connection is closed. On success the connection stays open as the source's. The
 * secrets are stored for the connection and never returned. Throws McpServerUnreachable,
 * McpOptionsError, DuplicateTool or ToolDefinitionError.
 */
export async function importMcp(deps: McpImportDeps, input: McpImportInput): Promise<McpImportResult> {
  await assertReachable(input.target, deps.outbound);
  const connection = deps.mcp.connect(input.target, input.secrets, deps.outbound);
  let sourceId: string | undefined;
  try {
    const { plan, server } = await readServer(connection, input);
    // Say which name is taken before anything is written (addMany would refuse it too).
    const clash = plan.tools.find((tool) => deps.registry.get(tool.spec.name));
    if (clash) throw new DuplicateTool(clash.spec.name);
    const secrets =
      input.secrets && (Object.keys(input.secrets.headers ?? {}).length || Object.keys(input.secrets.env ?? {}).length)
        ? input.secrets
        : undefined;
    const source = await deps.sources.create({
      kind: "mcp",
      name: (input.name ?? server.title ?? server.name).slice(0, 200),
      location: targetLocation(input.target),
      authRef: secretsRef(secrets),
      authSecret: secrets ? JSON.stringify(secrets) : null,
      options: storedOptions(input) as unknown as Record<string, unknown>,
    });
    sourceId = source.id;
    const id = source.id;
    const tools = await deps.registry.addMany(
      plan.tools.map((tool) => ({
        spec: { ...tool.spec, sourceId: id },
        handler: remoteToolHandler(() => deps.mcp.forSource(id), {
          remoteName: tool.remoteName,
          idempotent: tool.spec.policy?.idempotent ?? false,
        }),
      })),
    );
    deps.mcp.adopt(id, connection);
    deps.logger.info("mcp source imported", {
      source: id,
      transport: input.target.transport,
      location: source.location,
      tools: tools.length,
      skipped: plan.warnings.length,
      auth: secretsRef(secrets)?.kind ?? "none",
    });
    return { source: (await deps.sources.get(id))!, tools, warnings: plan.warnings };
  } catch (error) {
    if (sourceId) await deps.sources.delete(sourceId);
    await connection.close();
    throw error;
  }
}

/**
 * Read a source's tools from its server again and replace them, keeping what operators set on
 * tools that survive. One refresh per source runs at a time (a second request joins it). On
 * failure the old tools stay, the source's status becomes "error" with the reason, and the error
 * is thrown (as importMcp's, or SourceNotFound).
 */
export function refreshMcpSource(deps: McpImportDeps, id: string): Promise<McpImportResult> {
  return refreshSource(deps, id, "mcp", async (source) => {
    const stored = parseStoredOptions(source.options);
    if (!stored) throw new McpOptionsError(`The MCP source ${id} has no usable connection settings; import it again`);
    const listed = await (await deps.mcp.forSource(id)).listTools();
    const plan = planMcpTools(listed.tools, stored);
    return {
      tools: plan.tools.map((tool) => ({
        spec: tool.spec,
        handler: remoteToolHandler(() => deps.mcp.forSource(id), {
          remoteName: tool.remoteName,
          idempotent: tool.spec.policy?.idempotent ?? false,
        }),
      })),
      warnings: [...listed.warnings, ...plan.warnings],
      // A server says list_changed at every connect, often with nothing changed: leave such tools alone.
      keepWhenUnchanged: true,
    };
  });
}

/**
 * Wire MCP imports into the console: a connection pool, the binder that rebuilds imported tools'
 * handlers after a restart, and refreshes on `tools/list_changed`. Returns the pool (close it on
 * shutdown).
 */
export function startMcpImports(
  deps: Omit<McpImportDeps, "mcp">,
  options: Partial<ConstructorParameters<typeof McpConnections>[0]> = {},
): McpConnections {
  const pool = new McpConnections({ sources: deps.sources, outbound: deps.outbound, logger: deps.logger, ...options });
  pool.refresh = async (id) => {
    const source = await deps.sources.get(id);
    const stored = source && parseStoredOptions(source.options);
    return refreshMcpSource({ ...deps, outbound: deps.outbound.widen(stored?.allow ?? []), mcp: pool }, id);
  };
  return pool;
}

async function readServer(
  connection: McpConnection,
  input: McpImportInput,
): Promise<{ plan: McpPlan; server: NonNullable<McpConnection["server"]> }> {
  const listed = await connection.listTools();
  const plan = planMcpTools(listed.tools, input);
  plan.warnings.unshift(...listed.warnings);
  return { plan, server: connection.server ?? { name: "MCP server", version: "" } };
}

/** Refuse an HTTP URL the outbound guard refuses, with a clear error now rather than a failed connection. */
async function assertReachable(target: McpTarget, outbound: OutboundGuard): Promise<void> {
  if (target.transport !== "http") return;
  const refused = await outbound.check(target.url, true);
  if (refused) throw new McpOptionsError(`The server URL ${target.url} cannot be used: ${refused}`);
}

function storedOptions(input: McpImportInput): McpStoredOptions {
  const { target, prefix, allow, timeoutMs } = input;
  return JSON.parse(
    JSON.stringify({ target, prefix: prefix || undefined, allow: allow?.length ? allow : undefined, timeoutMs }),
  ) as McpStoredOptions;
}
