import type { Interrupt, ResumeEntry } from "@ag-ui/core";
import { z } from "zod";
import type { Approval, ApprovalStore } from "../../approvals";
import { DecisionPayload } from "../../approvals/decision-payload";
import { mayActFor, type Principal } from "../../auth/principal";
import { isDomainError } from "../../errors";
import { isJsonObject } from "../../json/canonical";
import { parseUntrusted } from "../../json/untrusted";
import type { Logger } from "../../log";

/**
 * How a remote AG-UI agent's interrupts reach the console's approvals inbox.
 *
 * The remote agent owns its interrupts: their ids are its own, and the chat gets them unchanged on
 * RUN_FINISHED, so the client's resume entries name them and are forwarded to the remote. Beside
 * that, each interrupt is recorded here as a console approval on the surface "agui-remote" (its
 * `callId` is the remote interrupt id), which the inbox lists with the caller and the source's
 * agent. An operator may decide it there; when the thread resumes, the console's decision is the
 * one forwarded, whatever the client's entry says (as for the console's own approvals), and a
 * client's answer to a still-pending one is recorded on it. Once the remote has taken the resume,
 * the approval is marked answered (and an approved one consumed), so it is shown open no more.
 */
export const REMOTE_SURFACE = "agui-remote";

/** What is kept of an interrupt's arguments at most (the rest is summarised). */
const MAX_ARGS_CHARS = 64 * 1024;
/** Interrupt ids longer than this are not recorded (the resume still forwards them). */
const MAX_ID_CHARS = 200;
/**
 * Interrupts of one remote run recorded as approvals; the rest still reach the chat, not the inbox
 * (a remote that sends thousands must not flood the inbox or hold the server writing them).
 */
export const MAX_RECORDED_INTERRUPTS = 20;
/** An approval waits at most this long, whatever the remote's expiry says. */
const MAX_TTL_MS = 7 * 24 * 3600 * 1000;
/** How many of a thread's remote approvals a resume looks through. */
const LOOKUP_LIMIT = 500;

/** The reason on an approval left to the remote because the chat answered it with a payload the inbox cannot read. */
const ANSWERED_IN_CHAT = "answered in the chat with a payload for the remote agent";

const Answer = z.union([z.boolean().transform((approved) => ({ approved })), DecisionPayload]);

export interface RemoteInterruptDeps {
  approvals: ApprovalStore;
  logger: Logger;
}

export interface RemoteRunScope {
  sourceId: string;
  agentName: string;
  threadId: string;
  runId: string;
  principal: Principal;
}

/**
 * Record the remote's interrupts as console approvals, pending for the caller. An interrupt asked
 * again in a later run replaces the earlier approval still pending for it (cancelled as superseded).
 */
export async function recordRemoteInterrupts(
  deps: RemoteInterruptDeps,
  scope: RemoteRunScope,
  interrupts: readonly Interrupt[],
): Promise<Approval[]> {
  const recorded: Approval[] = [];
  const earlier = await latestByInterrupt(deps.approvals, scope.threadId);
  if (interrupts.length > MAX_RECORDED_INTERRUPTS)
    deps.logger.warn("a remote agent asked more than the inbox takes from one run", {
      runId: scope.runId,
      interrupts: interrupts.length,
      recorded: MAX_RECORDED_INTERRUPTS,
    });
  for (const interrupt of interrupts.slice(0, MAX_RECORDED_INTERRUPTS)) {
    if (interrupt.id.length > MAX_ID_CHARS) continue;
    const metadata = interrupt.metadata ?? {};
    const toolName = typeof metadata.toolName === "string" && metadata.toolName ? metadata.toolName : interrupt.reason;
    const expires = interrupt.expiresAt ? Date.parse(interrupt.expiresAt) : NaN;
    const ttlMs = Number.isFinite(expires) ? Math.min(Math.max(expires - Date.now(), 1000), MAX_TTL_MS) : undefined;
    try {
      const approval = await deps.approvals.request({
        principal: scope.principal.id,
        scope: `${REMOTE_SURFACE}:${scope.sourceId}:${scope.runId}`,
        callId: interrupt.id,
        tool: toolName.slice(0, 100),
        args: argumentsOf(metadata.arguments),
        runId: scope.runId,
        threadId: scope.threadId,
        surface: REMOTE_SURFACE,
        message: `${scope.agentName}: ${interrupt.message ?? `the remote agent asks for a decision (${interrupt.reason})`}`.slice(0, 2000),
        ...(ttlMs !== undefined && { ttlMs }),
      });
      const previous = earlier.get(interrupt.id);
      if (previous && previous.id !== approval.id && previous.status === "pending")
        await settleQuietly(deps, previous, "asked again in a later run");
      recorded.push(approval);
    } catch (error) {
      // The chat still gets the interrupt; only the inbox misses it.
      deps.logger.error("could not record a remote interrupt as an approval", { runId: scope.runId, interruptId: interrupt.id, error });
    }
  }
  return recorded;
}

/** A resume entry as it goes to the remote, and the console approval it answers (if any). */
export interface ForwardedEntry {
  entry: ResumeEntry;
  approval?: Approval;
}

/**
 * The resume entries to forward to the remote: each one as the client sent it, unless the console
 * holds a decision for that interrupt (from the inbox, or an earlier answer), which then replaces
 * the client's. A client's answer to an approval still pending is recorded on it first. Entries
 * the caller may not answer are forwarded unchanged (the remote applies its own rules) but leave
 * the console's approval alone.
 */
export async function forwardResume(
  deps: RemoteInterruptDeps,
  scope: RemoteRunScope,
  entries: readonly ResumeEntry[],
): Promise<ForwardedEntry[]> {
  if (!entries.length) return [];
  const known = await latestByInterrupt(deps.approvals, scope.threadId);
  const forwarded: ForwardedEntry[] = [];
  // One entry after another, in the client's order.
  for (const entry of entries) {
    const found = known.get(entry.interruptId);
    if (!found || !found.scope.startsWith(`${REMOTE_SURFACE}:${scope.sourceId}:`) || !mayActFor(scope.principal, found.principal))
      forwarded.push({ entry });
    else if (found.status !== "pending") forwarded.push({ entry: entryFor(found, entry), approval: found });
    else {
      const settled = await settleFromClient(deps, scope, found, entry);
      // The client's answer is the one recorded: its words go on as they are (edited arguments included).
      forwarded.push({ entry: settled.own ? entry : entryFor(settled.approval, entry), approval: settled.approval });
    }
  }
  return forwarded;
}

/** After the remote took the resume: the approvals it answered are shown open no more (an approved one is used up). */
export async function markForwarded(deps: RemoteInterruptDeps, scope: RemoteRunScope, forwarded: readonly ForwardedEntry[]): Promise<void> {
  for (const { approval } of forwarded) {
    if (!approval) continue;
    try {
      const current = await deps.approvals.get(approval.id);
      if (current?.status === "approved")
        await deps.approvals.consume(current.id, {
          scope: current.scope,
          callId: current.callId,
          tool: current.tool,
          argsDigest: current.argsDigest,
        });
      await deps.approvals.markAnswered(approval.id, scope.runId, scope.principal.id);
    } catch (error) {
      deps.logger.warn("could not mark a forwarded remote approval answered", { approvalId: approval.id, error });
    }
  }
}

/**
 * The open interrupts of a thread whose last run ended with a remote agent's interrupts, as the
 * chat reloads them: each interrupt as the remote sent it, with the console's decision (status,
 * who decided, reason) in its metadata when one was taken meanwhile. `outcome` is the recorded
 * outcome of the thread's last run (nothing is open unless it ended with interrupts).
 */
export async function openRemoteInterrupts(approvals: ApprovalStore, threadId: string, outcome: unknown): Promise<Interrupt[]> {
  const recorded = (outcome as { type?: unknown; interrupts?: unknown } | null | undefined) ?? {};
  if (recorded.type !== "interrupt" || !Array.isArray(recorded.interrupts) || !recorded.interrupts.length) return [];
  const known = await latestByInterrupt(approvals, threadId);
  return (recorded.interrupts as Interrupt[]).flatMap((interrupt) => {
    const approval = typeof interrupt?.id === "string" ? known.get(interrupt.id) : undefined;
    if (!approval || approval.answeredAt) return [];
    return [
      {
        ...interrupt,
        metadata: {
          ...interrupt.metadata,
          status: approval.status,
          consoleApprovalId: approval.id,
          ...(approval.decidedBy ? { decidedBy: approval.decidedBy } : {}),
          ...(approval.reason ? { reason: approval.reason } : {}),
        },
      },
    ];
  });
}

/** Cancel the source's approvals still waiting (the source was removed). Returns how many. */
export async function cancelSourceApprovals(deps: RemoteInterruptDeps, sourceId: string, by: string): Promise<number> {
  let cancelled = 0;
  for (let cursor: string | undefined, pages = 0; pages < 20; pages++) {
    const page = await deps.approvals.list({ surface: REMOTE_SURFACE, status: ["pending", "approved"], limit: LOOKUP_LIMIT, cursor });
    for (const approval of page.items)
      if (
        approval.scope.startsWith(`${REMOTE_SURFACE}:${sourceId}:`) &&
        (await settleQuietly(deps, approval, "the remote agent's source was removed", by))
      )
        cancelled++;
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return cancelled;
}

/** The newest remote approval of the thread for each remote interrupt id. */
async function latestByInterrupt(approvals: ApprovalStore, threadId: string): Promise<Map<string, Approval>> {
  const latest = new Map<string, Approval>();
  // Newest first: the first row seen for an interrupt id is the one that counts.
  for (const approval of (await approvals.list({ threadId, surface: REMOTE_SURFACE, limit: LOOKUP_LIMIT })).items)
    if (!latest.has(approval.callId)) latest.set(approval.callId, approval);
  return latest;
}

/** Record what the client answered on a pending approval: the approval as it is now, and whether that answer is the one it holds. */
async function settleFromClient(
  deps: RemoteInterruptDeps,
  scope: RemoteRunScope,
  approval: Approval,
  entry: ResumeEntry,
): Promise<{ approval: Approval; own: boolean }> {
  const { approvals } = deps;
  try {
    if (entry.status === "cancelled")
      return { approval: await approvals.cancel(approval.id, scope.principal.id, "cancelled by the client"), own: true };
    const answer = parseUntrusted(Answer, entry.payload);
    if (answer.success) {
      const { approved } = answer.data;
      const reason = "reason" in answer.data ? answer.data.reason : undefined;
      return {
        approval: await approvals.decide(approval.id, { approved, ...(reason && { reason }), decidedBy: scope.principal.id }),
        own: true,
      };
    }
    // An answer the inbox cannot read (a form, say): the remote gets it as it is; the inbox stops asking.
    return { approval: await approvals.cancel(approval.id, scope.principal.id, ANSWERED_IN_CHAT), own: true };
  } catch (error) {
    // Decided in the inbox meanwhile, or expired: the row says what holds.
    if (!isDomainError(error)) throw error;
    return { approval: (await approvals.get(approval.id)) ?? approval, own: false };
  }
}

/** The entry to forward for an approval: its decision when the console holds one, else the client's entry. */
function entryFor(approval: Approval, entry: ResumeEntry): ResumeEntry {
  const metadata = entry.metadata ? { metadata: entry.metadata } : {};
  switch (approval.status) {
    // Consumed: forwarded once already; a replay says the same again (the remote answers it from its record).
    case "approved":
    case "consumed":
    case "denied":
      return { interruptId: entry.interruptId, status: "resolved", payload: decisionOf(approval), ...metadata };
    case "cancelled":
      // A form answered in the chat was cancelled here only to leave the inbox; its answer goes on.
      return entry.status === "resolved" && approval.reason === ANSWERED_IN_CHAT
        ? entry
        : { interruptId: entry.interruptId, status: "cancelled", ...metadata };
    case "expired":
      // Its time ran out here: no later answer may go on as a decision, as for the console's own.
      return { interruptId: entry.interruptId, status: "cancelled", ...metadata };
    default:
      return entry;
  }
}

function decisionOf(approval: Approval): { approved: boolean; reason?: string } {
  const approved = approval.status === "approved" || approval.status === "consumed";
  return { approved, ...(approval.reason ? { reason: approval.reason } : {}) };
}

async function settleQuietly(deps: RemoteInterruptDeps, approval: Approval, reason: string, by = "console"): Promise<boolean> {
  try {
    await deps.approvals.cancel(approval.id, by, reason);
    return true;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return false;
  }
}

function argumentsOf(value: unknown): Record<string, unknown> {
  if (!isJsonObject(value)) return {};
  const text = JSON.stringify(value);
  return text.length <= MAX_ARGS_CHARS ? value : { note: `arguments of ${text.length} characters, not kept` };
}
