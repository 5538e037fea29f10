import type { ToolRegistry } from "../tools/registry";
import type { GrantStore } from "../db/grants";
import type { Approval, ApprovalStore, Decision } from "./store";

export interface DecideDeps {
  approvals: ApprovalStore;
  grants: GrantStore;
  registry: ToolRegistry;
}

export interface DecisionInput extends Decision {
  /** Approve later calls of this tool in the same thread too (tools whose policy is "once per thread"). */
  rememberForThread?: boolean;
}

/**
 * Decide an approval the way every surface does (REST, inbox, AG-UI resume): record the decision,
 * and when it approves a call of a tool asked "once per thread", remember the grant for its thread.
 * Throws what ApprovalStore.decide throws.
 */
export async function decideApproval(deps: DecideDeps, id: string, decision: DecisionInput): Promise<Approval> {
  const { rememberForThread, ...rest } = decision;
  const approval = await deps.approvals.decide(id, rest);
  const tool = deps.registry.get(approval.tool);
  if (approval.status === "approved" && approval.threadId && tool && tool.approval === "once_per_thread" && rememberForThread !== false) {
    await deps.grants.grant({
      tool: tool.name,
      threadId: approval.threadId,
      toolDigest: tool.digest,
      grantedBy: decision.decidedBy,
      approvalId: approval.id,
    });
  }
  return approval;
}
