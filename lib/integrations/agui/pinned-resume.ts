import { randomUUID } from "node:crypto";
import { EventType, type AGUIEvent, type Message, type ResumeEntry, type RunAgentInput } from "@ag-ui/core";
import type { ApprovalStore } from "../../approvals";
import type { Principal } from "../../auth/principal";
import type { RunStore } from "../../db/runs";

// CopilotKit (1.74, through its useInterrupt hook) answers an interrupt in its own way: it resumes
// under the run id of the run that was interrupted, and before sending it adds a tool message of
// its own (the approval payload, or {"status":"cancelled"}) for each tool call it answers. The
// protocol says a resume is a new run, and the console keeps run ids unique (a reused one is 409),
// so such a request would be refused. This module recognises it and turns it into a new run.

/** What the bridge needs to know to run a resume that reuses the interrupted run's id. */
export interface PinnedResume {
  /** The id the run is recorded under: the client's id with a fresh suffix. */
  runId: string;
  /** The id the client sent, echoed in RUN_STARTED and RUN_FINISHED: the client waits for it. */
  clientRunId: string;
}

/**
 * Whether a request whose run id is already taken is a resume of that run, pinned to its id. It
 * is when the named run is on the same thread, was started by the same caller and ended with an
 * interrupt, and the request's resume answers at least one interrupt still open on the thread.
 * The last condition makes a replay of an answered resume a reused run id again (409): nothing
 * runs twice. It looks at the thread's open interrupts, not the named run's, because CopilotKit
 * pins the id of the run it first sent; a resumed run that is interrupted again keeps that id.
 */
export async function pinnedResume(
  deps: { runs: RunStore; approvals: ApprovalStore },
  input: RunAgentInput,
  principal: Principal,
): Promise<PinnedResume | undefined> {
  const entries = input.resume ?? [];
  if (entries.length === 0) return undefined;
  const named = await deps.runs.getRun(input.runId);
  if (!named || named.threadId !== input.threadId || named.principal !== principal.id || named.status !== "interrupted") return undefined;
  const open = new Set((await deps.approvals.unansweredForThread(input.threadId)).map((approval) => approval.id));
  if (!entries.some((entry) => open.has(entry.interruptId))) return undefined;
  return { runId: `${input.runId}.resume-${randomUUID().slice(0, 8)}`, clientRunId: input.runId };
}

/** The event as the client of a pinned resume expects it: with the run id it sent. */
export function echoClientRunId(event: AGUIEvent, pinned: PinnedResume, clientParentRunId: string | undefined): AGUIEvent {
  if (event.type === EventType.RUN_FINISHED) return { ...event, runId: pinned.clientRunId };
  if (event.type !== EventType.RUN_STARTED) return event;
  const { parentRunId: _recorded, ...rest } = event;
  return { ...rest, runId: pinned.clientRunId, ...(clientParentRunId ? { parentRunId: clientParentRunId } : {}) } as AGUIEvent;
}

/**
 * The messages without the client's own answers to tool calls the console paused for approval and
 * that this resume names: the console ran (or refused) those calls and adds its recorded result,
 * so a client's stand-in (CopilotKit's payload echo) never reaches the agent or the thread.
 */
export async function withoutClientAnswers(
  messages: readonly Message[],
  entries: readonly ResumeEntry[],
  approvals: ApprovalStore,
  threadId: string,
): Promise<Message[]> {
  const owned = new Set<string>();
  for (const entry of entries) {
    const approval = await approvals.get(entry.interruptId);
    if (approval && approval.threadId === threadId && approval.surface === "agui") owned.add(approval.callId);
  }
  if (owned.size === 0) return [...messages];
  return messages.filter((message) => !(message.role === "tool" && owned.has(message.toolCallId)));
}
