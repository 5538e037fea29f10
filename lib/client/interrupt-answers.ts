import type { ResumeEntry } from "@ag-ui/core";
import { buildResumeArray, isInterruptExpired } from "@ag-ui/client";
import type { InterruptAnswer, OpenInterrupt } from "./snapshot";

/**
 * The open interrupts with `answer` given to `interruptId`. Throws for an unknown interrupt, and
 * for approving one that expired (those can only be cancelled).
 */
export function withAnswer(interrupts: readonly OpenInterrupt[], interruptId: string, answer: InterruptAnswer, now: Date): OpenInterrupt[] {
  const open = interrupts.find((candidate) => candidate.interrupt.id === interruptId);
  if (!open) throw new Error(`No open interrupt ${interruptId}`);
  if (answer.status === "resolved" && isInterruptExpired(open.interrupt, now)) {
    throw new Error(`Interrupt ${interruptId} expired at ${open.interrupt.expiresAt}; it can only be cancelled`);
  }
  return interrupts.map((candidate) => (candidate === open ? { ...candidate, answer } : candidate));
}

/** True once every open interrupt has an answer: the resume can go. */
export function allAnswered(interrupts: readonly OpenInterrupt[]): boolean {
  return interrupts.every((open) => open.answer);
}

/** The first interrupt approved in time that expired while the others were being answered, if any. */
export function expiredApproval(interrupts: readonly OpenInterrupt[], now: Date): OpenInterrupt | undefined {
  return interrupts.find((open) => open.answer?.status === "resolved" && isInterruptExpired(open.interrupt, now));
}

/** The `resume` array of the run that answers the interrupts (one entry per answered interrupt). */
export function resumeEntries(interrupts: readonly OpenInterrupt[]): ResumeEntry[] {
  const responses: Parameters<typeof buildResumeArray>[1] = {};
  for (const open of interrupts) if (open.answer) responses[open.interrupt.id] = open.answer;
  return buildResumeArray(
    interrupts.map((open) => open.interrupt),
    responses,
  );
}
