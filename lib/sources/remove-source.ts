import type { ToolRegistry } from "../tools/registry";
import { SourceNotFound } from "./errors";
import type { SourceStore } from "../db/sources";

/** Whatever keeps a live connection for a source (the MCP connection pool): told when the source goes. */
export interface SourceConnections {
  close(sourceId: string): Promise<void>;
}

/**
 * Remove a source and every tool it brought, and close its connection (an MCP server's session or
 * process, an A2A agent's client) if it has one. Rejects with SourceNotFound. Resolves with how many tools went.
 */
export async function removeSource(
  deps: { registry: ToolRegistry; sources: SourceStore; mcp?: SourceConnections; a2aAgents?: SourceConnections },
  id: string,
): Promise<number> {
  if (!(await deps.sources.get(id))) throw new SourceNotFound(id);
  // Through the registry first, so its in-memory copy and listeners see the tools go.
  const removed = await deps.registry.removeSource(id);
  await deps.sources.delete(id);
  // The pool forgets the connection at once; ending a process may take a moment, which nobody waits for.
  void deps.mcp?.close(id).catch(() => {});
  void deps.a2aAgents?.close(id).catch(() => {});
  return removed;
}
