import type { Interrupt } from "@ag-ui/core";
import type { Approval } from "../approvals";
import { DECISION_RESPONSE_SCHEMA } from "../approvals/decision-payload";
import type { RegisteredTool } from "../tools/spec";

/** What an interrupt shows of an approval (a stored one, or the one a call just asked for). */
export type InterruptSubject = Pick<
  Approval,
  "id" | "callId" | "tool" | "args" | "message" | "expiresAt" | "principal" | "status" | "decidedBy"
>;

/** The AG-UI interrupt standing for a call that waits for approval: its id is the approval id. */
export function interruptFor(approval: InterruptSubject, tool?: RegisteredTool): Interrupt {
  return {
    id: approval.id,
    reason: "tool_call",
    toolCallId: approval.callId,
    message: approval.message ?? `${tool?.title ?? approval.tool} wants to run. Approve?`,
    responseSchema: DECISION_RESPONSE_SCHEMA as Record<string, unknown>,
    expiresAt: new Date(approval.expiresAt).toISOString(),
    metadata: {
      toolName: approval.tool,
      arguments: approval.args,
      approvalId: approval.id,
      principal: approval.principal,
      status: approval.status,
      ...(tool ? { approvalPolicy: tool.approval } : {}),
      ...(approval.decidedBy ? { decidedBy: approval.decidedBy } : {}),
    },
  };
}
