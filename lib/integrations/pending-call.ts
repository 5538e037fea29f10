import { ApprovalPending } from "../execution/errors";
import type { ToolResult } from "../execution/result";

/**
 * Throws ApprovalPending when a result waits for a person: such a call has no answer a model could
 * read yet, so exporters of results refuse it rather than send a fake one.
 */
export function assertAnswered(result: ToolResult, toolName: string): void {
  if (!result.ok && result.error.kind === "approval_pending") {
    throw new ApprovalPending(toolName, result.error.approvalId ?? "", result.error.expiresAt ?? 0);
  }
}
