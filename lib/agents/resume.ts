import type { ResumeEntry } from "@ag-ui/core";
import { z } from "zod";
import { ApprovalAlreadyDecided, ApprovalDecisionInvalid, ApprovalExpired, decideApproval, type Approval } from "../approvals";
import { mayActFor } from "../auth/principal";
import { isPending } from "../execution";
import type { AgentRun } from "./agent-run";

/** What a resume entry's payload may say about a tool-call interrupt (see TOOL_CALL_RESPONSE_SCHEMA). */
const ToolCallAnswer = z.union([
  z.boolean().transform((approved) => ({ approved })),
  z
    .object({
      approved: z.boolean(),
      reason: z.string().max(2000).optional(),
      editedArgs: z.record(z.string(), z.unknown()).optional(),
      rememberForThread: z.boolean().optional(),
    })
    .strict(),
]);

/** The CUSTOM event that tells the client a resume entry was ignored, and why. */
export const RESUME_IGNORED_EVENT = "agui-console.resume_ignored";

/**
 * Apply the run's resume entries to the thread's open interrupts: decide or cancel each one the
 * caller may answer, run approved calls once through the executor (a replay is answered from the
 * call record), and stream each outcome as TOOL_CALL_RESULT for the original tool call.
 * Entries that fail a check are ignored with a warning and never act. Returns true when no
 * interrupt of the thread is left open, so the agent may go on.
 */
export async function applyResume(run: AgentRun): Promise<boolean> {
  const { approvals, executor, principal, logger } = run.ctx;
  const entries: ResumeEntry[] = run.input.resume ?? [];
  const ignore = (entry: ResumeEntry, reason: string): void => {
    logger.warn("resume entry ignored", { threadId: run.threadId, runId: run.runId, interruptId: entry.interruptId, reason });
    run.custom(RESUME_IGNORED_EVENT, { interruptId: entry.interruptId, reason });
  };

  for (const entry of entries) {
    const approval = approvals.get(entry.interruptId);
    if (!approval || approval.threadId !== run.threadId || approval.surface !== "agui") {
      ignore(entry, "no open interrupt with this id on this thread");
      continue;
    }
    if (!mayActFor(principal, approval.principal)) {
      ignore(entry, "only the caller who started the run, or an operator, may answer this interrupt");
      continue;
    }
    if (approval.answeredAt) {
      ignore(entry, "this interrupt was answered already");
      // A replayed request may lack the answer in its history: the record gives it, nothing runs again.
      if (!run.hasAnswer(approval.callId)) await answer(run, approval);
      continue;
    }
    const settled = settle(run, approval, entry);
    if (settled !== true) {
      ignore(entry, settled);
      continue;
    }
    await answer(run, approval);
  }

  const open = approvals.unansweredForThread(run.threadId);
  for (const approval of open) run.reopen(approval);
  return open.length === 0;

  async function answer(run: AgentRun, approval: Approval): Promise<void> {
    const result = await executor.call(approval.tool, approval.args, {
      callId: approval.callId,
      ctx: { ...run.runContext, principal: approval.principal, scope: approval.scope },
    });
    if (isPending(result)) return;
    run.answer(approval.callId, result);
    approvals.markAnswered(approval.id, run.runId, principal.id);
  }
}

/**
 * Record what the entry says, unless a decision is stored already (an operator's decision from the
 * inbox is the one applied). Returns true to go on, or why the entry is ignored.
 */
function settle(run: AgentRun, approval: Approval, entry: ResumeEntry): true | string {
  const { approvals, principal } = run.ctx;
  if (approval.status !== "pending") return true;
  if (approval.expiresAt <= Date.now()) {
    approvals.expireDue();
    return entry.status === "cancelled" ? true : "the interrupt expired: it can only be cancelled";
  }
  if (entry.status === "cancelled") {
    try {
      approvals.cancel(approval.id, principal.id, "cancelled by the client");
    } catch (error) {
      if (!(error instanceof ApprovalAlreadyDecided)) throw error;
    }
    return true;
  }
  const parsed = ToolCallAnswer.safeParse(entry.payload);
  if (!parsed.success) return "the payload does not match the interrupt's responseSchema ({ approved, reason?, editedArgs? })";
  try {
    decideApproval({ approvals, grants: run.ctx.grants, registry: run.ctx.executor.registry }, approval.id, { ...parsed.data, decidedBy: principal.id });
    return true;
  } catch (error) {
    if (error instanceof ApprovalAlreadyDecided) return true;
    if (error instanceof ApprovalExpired) return "the interrupt expired: it can only be cancelled";
    if (error instanceof ApprovalDecisionInvalid)
      return `${error.message}${error.issues.length ? `: ${error.issues.map((i) => `${i.path || "/"} ${i.message}`).join("; ")}` : ""}`;
    throw error;
  }
}
