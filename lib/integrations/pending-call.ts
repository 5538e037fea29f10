import { ApprovalPending } from "../execution/errors";
import { isPending, type CallOutcome, type ToolResult } from "../execution/result";

/**
 * Throws ApprovalPending when a call waits for a person: it has no answer a model could read yet,
 * so exporters of results refuse it rather than send a fake one.
 */
export function assertAnswered(outcome: CallOutcome, toolName: string): asserts outcome is ToolResult {
  if (isPending(outcome)) throw new ApprovalPending(toolName, outcome.pending.approvalId, outcome.pending.expiresAt);
}
