import type { Interrupt } from "@ag-ui/core";
import type { Approval } from "../approvals";
import type { RegisteredTool } from "../tools/spec";

/** The answer a client sends in a resume entry's payload for a tool-call interrupt. */
export const TOOL_CALL_RESPONSE_SCHEMA = {
  type: "object",
  properties: {
    approved: { type: "boolean", description: "Run the call (true) or refuse it (false)." },
    reason: { type: "string", description: "Why, shown to the agent and kept in the audit trail." },
    editedArgs: { type: "object", description: "Arguments to run instead of the proposed ones (whole replacement)." },
    rememberForThread: { type: "boolean", description: "For tools asked once per thread: approve later calls in this thread too." },
  },
  required: ["approved"],
  additionalProperties: false,
} as const;

/** The AG-UI interrupt standing for a call that waits for approval: its id is the approval id. */
export function interruptFor(approval: Approval, tool?: RegisteredTool): Interrupt {
  return {
    id: approval.id,
    reason: "tool_call",
    toolCallId: approval.callId,
    message: approval.message ?? `${tool?.title ?? approval.tool} wants to run. Approve?`,
    responseSchema: TOOL_CALL_RESPONSE_SCHEMA as unknown as Record<string, unknown>,
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
