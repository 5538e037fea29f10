import type { ApprovalCheck, ApprovalPort, ApprovalVerdict } from "../execution/approval-port";
import type { RegisteredTool } from "../tools/spec";
import { ApprovalNotUsable } from "./errors";
import type { GrantStore } from "../db/grants";
import type { ApprovalStore } from "./store";

/** True when a call of `tool` must wait for a person: the operator's policy first, then the tool's own. */
export function requiresApproval(tool: RegisteredTool): boolean {
  switch (tool.approval) {
    case "always":
    case "once_per_thread":
      return true;
    case "never":
      return false;
    default:
      return tool.policy.confirm;
  }
}

/** The executor's approval port over the approval store. */
export class ApprovalGate implements ApprovalPort {
  constructor(
    private readonly store: ApprovalStore,
    private readonly now: () => number = Date.now,
    /** Grants of "approve for this thread"; without them, "once per thread" asks every time. */
    private readonly grants?: GrantStore,
  ) {}

  async check({ tool, args, argsDigest, callId, ctx }: ApprovalCheck): Promise<ApprovalVerdict> {
    if (!requiresApproval(tool)) return { status: "approved" };
    // "Once per thread": a grant made in this thread for this very definition lets the call run.
    if (tool.approval === "once_per_thread" && ctx.threadId && (await this.grants?.activeFor(tool.name, ctx.threadId, tool.digest)))
      return { status: "approved" };
    const binding = { scope: ctx.scope, callId, tool: tool.name, argsDigest };
    // request() is idempotent on the call (insert once by key), so two callers that both miss here
    // still share one approval.
    let approval =
      (await this.store.findFor(ctx.principal, binding)) ??
      (await this.store.request({
        principal: ctx.principal,
        ...binding,
        args,
        runId: ctx.runId,
        threadId: ctx.threadId,
        surface: ctx.surface,
        message: `${tool.title} wants to run with these arguments. Approve?`,
      }));
    if (approval.status === "pending" && approval.expiresAt <= this.now()) {
      await this.store.expireDue();
      approval = (await this.store.get(approval.id)) ?? approval;
    }
    switch (approval.status) {
      case "pending":
        return {
          status: "pending",
          approvalId: approval.id,
          expiresAt: approval.expiresAt,
          message: approval.message ?? `${tool.title} wants to run. Approve?`,
        };
      case "approved":
        try {
          const used = await this.store.consume(approval.id, binding);
          return { status: "approved", approvalId: used.id, ...(used.editedArgs && { args: used.editedArgs }) };
        } catch (error) {
          if (!(error instanceof ApprovalNotUsable)) throw error;
          // Used by another caller between our read and our consume: answered as a used approval.
          const now = await this.store.get(approval.id);
          if (now?.status === "consumed") return { status: "used", approvalId: now.id, ...(now.result && { result: now.result }) };
          return { status: "denied", approvalId: approval.id, reason: `the approval cannot be used: it is ${now?.status ?? "gone"}` };
        }
      case "denied":
        return { status: "denied", approvalId: approval.id, ...(approval.reason && { reason: approval.reason }) };
      case "expired":
        return { status: "expired", approvalId: approval.id };
      case "cancelled":
        return { status: "cancelled", approvalId: approval.id };
      case "consumed":
        // Not a denial: the call was allowed and started. Its recorded outcome answers, or, when
        // none was recorded (the console stopped while it ran), the executor says it is unknown.
        return { status: "used", approvalId: approval.id, ...(approval.result && { result: approval.result }) };
    }
  }

  recordOutcome(approvalId: string, result: unknown): Promise<void> {
    return this.store.recordOutcome(approvalId, result);
  }
}
