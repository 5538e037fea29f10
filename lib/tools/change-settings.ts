import type { Db } from "../db";
import { toolEvents } from "../db/schema";
import { ToolUsageError } from "./errors";
import type { ToolRegistry, ToolSettings } from "./registry";
import type { RegisteredTool } from "./spec";

/** What an operator controls on a tool, as the audit trail records it before and after a change. */
export type SettingsSnapshot = Required<ToolSettings>;

/** The operator-controlled settings of a tool. */
export function settingsOf(tool: RegisteredTool): SettingsSnapshot {
  return { enabled: tool.enabled, approval: tool.approval, timeoutMs: tool.policy.timeoutMs, retries: tool.policy.retries, targets: [...tool.policy.targets] };
}

/**
 * Change a tool's settings and append a "settings_changed" row to its audit trail (tool_events),
 * in one transaction. Throws ToolUsageError for an unknown tool; nothing is written then.
 */
export function changeToolSettings(deps: { db: Db; registry: ToolRegistry }, name: string, settings: ToolSettings, actor: string): RegisteredTool {
  const existing = deps.registry.get(name);
  if (!existing) throw new ToolUsageError(`No tool named "${name}" is registered`);
  return deps.db.transaction(
    (tx) => {
      // The registry writes on the same connection, so its update is part of this transaction; it
      // updates its in-memory copy only after its write succeeded.
      const updated = deps.registry.update(name, settings);
      const now = Date.now();
      tx.insert(toolEvents)
        .values({ tool: name, type: "settings_changed", actor, data: { before: settingsOf(existing), after: settingsOf(updated) }, createdAt: now, updatedAt: now })
        .run();
      return updated;
    },
    { behavior: "immediate" },
  );
}
