import type { ApprovalStatus } from "../db/schema";

/**
 * How an approval's status may change: each transition names the statuses it starts from, the
 * status it leads to, and the audit event it writes. Nothing else changes a status; a transition
 * attempted from any other status is refused (exactly one of two concurrent decisions wins).
 *
 *   pending ──decide──▶ approved ──consume──▶ consumed
 *      │        └─────▶ denied
 *      ├──expire──▶ expired
 *      └──cancel──▶ cancelled ◀──cancel── approved
 */
export const TRANSITIONS = {
  /** A person's decision, before the approval expires. */
  decide: { from: ["pending"], to: ["approved", "denied"], event: "decided" },
  /** The approval's time passed with no decision (the sweep, or the first reader that notices). */
  expire: { from: ["pending"], to: ["expired"], event: "expired" },
  /** Withdrawn before anybody used it. */
  cancel: { from: ["pending", "approved"], to: ["cancelled"], event: "cancelled" },
  /** The executor uses an approval for the very call it was asked for, once. */
  consume: { from: ["approved"], to: ["consumed"], event: "consumed" },
} as const satisfies Record<string, { from: readonly ApprovalStatus[]; to: readonly ApprovalStatus[]; event: string }>;

export type Transition = keyof typeof TRANSITIONS;
