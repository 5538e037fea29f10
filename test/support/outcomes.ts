import type { CallOutcome } from "@/lib/execution";

/** The approval a call waits for; throws when the call did not wait. */
export function approvalIdOf(outcome: CallOutcome): string {
  if (!("pending" in outcome)) throw new Error(`expected a call waiting for approval, got ${JSON.stringify(outcome)}`);
  return outcome.pending.approvalId;
}

/** A call's value; throws when the call did not succeed. */
export function valueOf(outcome: CallOutcome): unknown {
  if ("pending" in outcome || !outcome.ok) throw new Error(`the call did not succeed: ${JSON.stringify(outcome)}`);
  return outcome.value;
}

/** A call's failure; throws when the call did not fail. */
export function failureOf(outcome: CallOutcome) {
  if ("pending" in outcome || outcome.ok) throw new Error(`the call did not fail: ${JSON.stringify(outcome)}`);
  return outcome.error;
}
