import type { CallOutcome } from "@/lib/execution";

/** The approval a call waits for; throws when the call did not wait. */
export function approvalIdOf(outcome: CallOutcome): string {
  if (!("pending" in outcome)) throw new Error(`expected a call waiting for approval, got ${JSON.stringify(outcome)}`);
  return outcome.pending.approvalId;
}
