import type { ToolRegistry } from "../tools/registry";
import { SourceNotFound } from "./errors";
import type { SourceStore } from "../db/sources";

/** Remove a source and every tool it brought. Throws SourceNotFound. Returns how many tools went. */
export function removeSource(deps: { registry: ToolRegistry; sources: SourceStore }, id: string): number {
  if (!deps.sources.get(id)) throw new SourceNotFound(id);
  // Through the registry first, so its in-memory copy and listeners see the tools go.
  const removed = deps.registry.removeSource(id);
  deps.sources.delete(id);
  return removed;
}
