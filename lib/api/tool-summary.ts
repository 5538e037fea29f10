import { requiresApproval } from "../approvals/gate";
import type { RegisteredTool } from "../tools/spec";
import type { ToolDetail, ToolSummary } from "./contracts";

/** The list view of a tool. */
export function toolSummary(tool: RegisteredTool): ToolSummary {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    kind: tool.kind,
    sourceId: tool.sourceId,
    effects: tool.policy.effects,
    needsApproval: requiresApproval(tool),
    approval: tool.approval,
    targets: tool.policy.targets,
    tags: tool.policy.tags,
    enabled: tool.enabled,
  };
}

/** The page view of a tool: everything but the importer's binding. */
export function toolDetail(tool: RegisteredTool): ToolDetail {
  const { binding: _binding, ...rest } = tool;
  return { ...rest, needsApproval: requiresApproval(tool) };
}
