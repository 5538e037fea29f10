import { EventType, type AGUIEvent, type ResumeEntry } from "@ag-ui/core";
import { z } from "zod";
import { RESUME_IGNORED_EVENT } from "../../agents/agent-function";
import { toolResultMessage, type Conversation } from "../../agents/conversation";
import { decideApproval, type Approval, type ApprovalStore, type GrantStore } from "../../approvals";
import { DecisionPayload } from "../../approvals/decision-payload";
import { mayActFor, type Principal } from "../../auth/principal";
import { isDomainError } from "../../errors";
import { isPending, type Executor } from "../../execution";
import { parseUntrusted } from "../../json/untrusted";
import type { Logger } from "../../log";

/** What a resume entry's payload may say about a tool-call interrupt: the decision payload, or just `true`/`false`. */
const ToolCallAnswer = z.union([z.boolean().transform((approved) => ({ approved })), DecisionPayload]);

export interface ResumeDeps {
  executor: Executor;
  approvals: ApprovalStore;
  grants: GrantStore;
  logger: Logger;
}

export interface ResumeRun {
  threadId: string;
  runId: string;
  principal: Principal;
  signal: AbortSignal;
  entries: readonly ResumeEntry[];
  /** The thread had no run before this one: none of its interrupts can be open, so none is looked up. */
  newThread?: boolean;
  /** The thread's messages; the answers are added to it. */
  conversation: Conversation;
  /** Streams an event of the run (timestamps are added by the caller). */
  emit(event: AGUIEvent): void;
}

export interface ResumeOutcome {
  /** Interrupts of the thread still waiting: while there are any, the agent is not run. */
  open: Approval[];
  /** Entries that name no approval of the console: the agent's own interrupts, if it has any. */
  foreign: ResumeEntry[];
}

/**
 * Apply a run's resume entries to the thread's open interrupts, before the agent runs: decide or
 * cancel each one the caller may answer, run approved calls once through the executor (a replay
 * is answered from the call record), and stream each outcome as TOOL_CALL_RESULT for the original
 * tool call. Entries that fail a check are ignored with a RESUME_IGNORED_EVENT and never act.
 */
export async function applyResume(deps: ResumeDeps, run: ResumeRun): Promise<ResumeOutcome> {
  const { approvals, executor, logger } = deps;
  const foreign: ResumeEntry[] = [];
  const ignore = (entry: ResumeEntry, reason: string): void => {
    logger.warn("resume entry ignored", { threadId: run.threadId, runId: run.runId, interruptId: entry.interruptId, reason });
    run.emit({ type: EventType.CUSTOM, name: RESUME_IGNORED_EVENT, value: { interruptId: entry.interruptId, reason } });
  };

  const answer = async (approval: Approval): Promise<void> => {
    const outcome = await executor.call(approval.tool, approval.args, {
      callId: approval.callId,
      ctx: {
        runId: run.runId,
        threadId: run.threadId,
        principal: approval.principal,
        scope: approval.scope,
        surface: "agui",
        signal: run.signal,
      },
    });
    if (isPending(outcome)) return;
    const message = toolResultMessage(approval.callId, outcome);
    run.conversation.addToolMessage(message);
    run.emit({
      type: EventType.TOOL_CALL_RESULT,
      messageId: message.id,
      toolCallId: approval.callId,
      content: message.content,
      role: "tool",
    });
    await approvals.markAnswered(approval.id, run.runId, run.principal.id);
  };

  for (const entry of run.entries) {
    const approval = await approvals.get(entry.interruptId);
    if (!approval) {
      foreign.push(entry);
      continue;
    }
    if (approval.threadId !== run.threadId || approval.surface !== "agui") {
      ignore(entry, "no open interrupt with this id on this thread");
      continue;
    }
    if (!mayActFor(run.principal, approval.principal)) {
      ignore(entry, "only the caller who started the run, or an operator, may answer this interrupt");
      continue;
    }
    if (approval.answeredAt) {
      ignore(entry, "this interrupt was answered already");
      // A replayed request may lack the answer in its history: the record gives it, nothing runs again.
      if (!run.conversation.hasAnswer(approval.callId)) await answer(approval);
      continue;
    }
    const settled = await settle(deps, run.principal, approval, entry);
    if (settled !== true) {
      ignore(entry, settled);
      continue;
    }
    await answer(approval);
  }
  return { open: run.newThread ? [] : await approvals.unansweredForThread(run.threadId), foreign };
}

/**
 * Record what the entry says, unless a decision is stored already (an operator's decision from the
 * inbox is the one applied). Returns true to go on, or why the entry is ignored.
 */
async function settle(deps: ResumeDeps, principal: Principal, approval: Approval, entry: ResumeEntry): Promise<true | string> {
  const { approvals, grants, executor } = deps;
  if (approval.status !== "pending") return true;
  if (approval.expiresAt <= Date.now()) {
    await approvals.expireDue();
    return entry.status === "cancelled" ? true : "the interrupt expired: it can only be cancelled";
  }
  if (entry.status === "cancelled") {
    try {
      await approvals.cancel(approval.id, principal.id, "cancelled by the client");
    } catch (error) {
      // Decided in the inbox meanwhile: that decision is the one applied.
      if (!isDomainError(error) || error.kind !== "approval_already_decided") throw error;
    }
    return true;
  }
  const parsed = parseUntrusted(ToolCallAnswer, entry.payload);
  if (!parsed.success)
    return "the payload does not match the interrupt's responseSchema ({ approved, reason?, editedArgs?, rememberForThread? })";
  try {
    await decideApproval({ approvals, grants, registry: executor.registry }, approval.id, { ...parsed.data, decidedBy: principal.id });
    return true;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    switch (error.kind) {
      case "approval_already_decided":
        return true;
      case "approval_expired":
        return "the interrupt expired: it can only be cancelled";
      case "approval_decision_invalid":
        return `${error.message}${error.issues.length ? `: ${error.issues.map((i) => `${i.path || "/"} ${i.message}`).join("; ")}` : ""}`;
      default:
        throw error;
    }
  }
}
