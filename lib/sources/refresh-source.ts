import type { Logger } from "../log";
import type { SourceKind, SourceStore, SourceSummary } from "../db/sources";
import { DuplicateTool } from "../tools/errors";
import { definitionDigest, normalise, type CheckedToolInput, type ToolInput, type ToolRegistry } from "../tools/registry";
import type { RegisteredTool, ToolSpec } from "../tools/spec";
import { SourceNotFound } from "./errors";

/** What a source's tools read again come to: the tools, and what else the refresh keeps. */
export interface RefreshedSource {
  /** The source's tools as they are now (specs without sourceId: it is added here), checked or not. */
  tools: Array<ToolInput | CheckedToolInput>;
  warnings: string[];
  /**
   * Leave the registry alone when every tool came back with the same definition, title and
   * policy (a server that says "list changed" at every connect).
   */
  keepWhenUnchanged?: boolean;
  /** Source columns to write with the "ok" status (the document or card read, options). */
  update?: Parameters<SourceStore["update"]>[1];
  /** Called once the new tools are in, before the status is written (adopt a new connection). */
  committed?: () => void;
}

export interface RefreshResult {
  source: SourceSummary;
  tools: RegisteredTool[];
  warnings: string[];
}

export interface RefreshDeps {
  sources: SourceStore;
  registry: ToolRegistry;
  logger: Logger;
}

/** Refreshes under way, by source id: a second request for the same source joins the first. */
const running = new Map<string, Promise<RefreshResult>>();

/**
 * Read a source's tools again and replace them, keeping what operators set on tools that survive:
 * the steps every kind of source shares. The source shows "refreshing" while `read` works; on
 * success its tools are replaced (all or nothing) and it shows "ok"; on failure the old tools stay,
 * the source shows "error" with the reason, and the error is thrown. A source removed while `read`
 * waited gets nothing written (SourceNotFound); a tool name another source holds fails the refresh
 * (DuplicateTool). One refresh per source runs at a time.
 */
export function refreshSource(
  deps: RefreshDeps,
  id: string,
  kind: SourceKind,
  read: (source: SourceSummary) => Promise<RefreshedSource>,
): Promise<RefreshResult> {
  const joined = running.get(id);
  if (joined) return joined;
  const promise = refreshNow(deps, id, kind, read).finally(() => running.delete(id));
  running.set(id, promise);
  return promise;
}

async function refreshNow(
  { sources, registry, logger }: RefreshDeps,
  id: string,
  kind: SourceKind,
  read: (source: SourceSummary) => Promise<RefreshedSource>,
): Promise<RefreshResult> {
  const source = await sources.startRefresh(id, kind);
  if (!source) throw new SourceNotFound(id);
  try {
    const refreshed = await read(source);
    // The source may have gone while its tools were read: write nothing for a removed source.
    if (!(await sources.get(id))) throw new SourceNotFound(id);
    const specs = refreshed.tools.map((tool) =>
      "digest" in tool ? { ...tool.spec, sourceId: id } : normalise({ ...tool.spec, sourceId: id }),
    );
    const clash = specs.find((spec) => {
      const existing = registry.get(spec.name);
      return existing && existing.sourceId !== id;
    });
    if (clash) throw new DuplicateTool(clash.name);
    const old = registry.all().filter((tool) => tool.sourceId === id);
    const tools =
      refreshed.keepWhenUnchanged && sameTools(registry, id, old, specs)
        ? old
        : await registry.replaceSource(
            id,
            refreshed.tools.map((tool) => ({ ...tool, spec: { ...tool.spec, sourceId: id } })),
          );
    refreshed.committed?.();
    await sources.update(id, { status: "ok", statusMessage: null, lastRefreshAt: Date.now(), ...refreshed.update });
    logger.info(`${kind} source refreshed`, { source: id, tools: tools.length });
    return { source: (await sources.get(id))!, tools: tools.map((tool) => registry.get(tool.name) ?? tool), warnings: refreshed.warnings };
  } catch (error) {
    if (await sources.get(id))
      await sources.update(id, { status: "error", statusMessage: error instanceof Error ? error.message.slice(0, 1000) : String(error) });
    throw error;
  }
}

function sameTools(registry: ToolRegistry, id: string, old: RegisteredTool[], specs: ToolSpec[]): boolean {
  return (
    old.length === specs.length &&
    specs.every((spec) => {
      const existing = registry.get(spec.name);
      return (
        existing?.sourceId === id &&
        existing.digest === definitionDigest(spec) &&
        existing.title === spec.title &&
        existing.policy.confirm === spec.policy.confirm &&
        existing.policy.idempotent === spec.policy.idempotent &&
        existing.policy.openWorld === spec.policy.openWorld
      );
    })
  );
}
