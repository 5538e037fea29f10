import { ToolUsageError } from "../tools/errors";
import type { Target, ToolSpec } from "../tools/spec";

/** Throws ToolUsageError when the tool's policy does not export it to `target`. */
export function assertTarget(tool: ToolSpec, target: Target): void {
  if (!tool.policy.targets.includes(target)) {
    throw new ToolUsageError(
      `Tool "${tool.name}" is not exported to ${target} (its targets are ${tool.policy.targets.join(", ") || "empty"})`,
    );
  }
}
