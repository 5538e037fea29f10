import type { RegisteredTool } from "../tools/spec";
import type { RunContext } from "./context";

export interface ApprovalCheck {
  tool: RegisteredTool;
  args: Record<string, unknown>;
  argsDigest: string;
  callId: string;
  ctx: RunContext;
}

/** What the approval port says about one call. */
export type ApprovalVerdict =
  /** Run it; `args` replaces the arguments when a person edited them. */
  | { status: "approved"; approvalId?: string; args?: Record<string, unknown> }
  | { status: "denied"; approvalId: string; reason?: string }
  | { status: "pending"; approvalId: string; expiresAt: number; message: string }
  | { status: "expired"; approvalId: string }
  | { status: "cancelled"; approvalId: string }
  /**
   * The approval was used already: the call is never run again under it. `result` is the outcome
   * recorded for it, when there is one (the executor answers with it); none means the outcome is
   * unknown (the console stopped while the call ran).
   */
  | { status: "used"; approvalId: string; result?: unknown };

/**
 * How the executor asks whether a call may run. The approval store implements it; the executor
 * knows nothing of how decisions are stored or made.
 */
export interface ApprovalPort {
  check(request: ApprovalCheck): Promise<ApprovalVerdict>;
  /** Keep the outcome of a call an approval allowed (when it ran and what it returned). */
  recordOutcome(approvalId: string, result: unknown): Promise<void>;
}

/** A port that lets every call run: for tests and tools that never need a person. */
export const allowAll: ApprovalPort = {
  check: async () => ({ status: "approved" }),
  recordOutcome: async () => {},
};
