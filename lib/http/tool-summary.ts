import { requiresApproval } from "../approvals/gate";
import type { ApprovalPolicy, Effects, RegisteredTool, Target } from "../tools/spec";

/** A tool as the tool list shows it: no schemas, so a page of a thousand stays small. */
export interface ToolSummary {
  name: string;
  title: string;
  description: string;
  kind: string;
  sourceId: string | null;
  effects: Effects;
  /** Calls wait for a person, as the operator's policy and the tool's own `confirm` decide. */
  needsApproval: boolean;
  approval: ApprovalPolicy;
  targets: Target[];
  tags: string[];
  enabled: boolean;
}

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
