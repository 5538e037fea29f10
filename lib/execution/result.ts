import type { Issue } from "../errors";
import { ToolDenied, ToolError, type ToolCallError, type ToolErrorKind } from "./errors";

export interface ToolErrorInfo {
  kind: ToolErrorKind;
  message: string;
  /** Where the arguments or output went wrong (invalid_arguments, invalid_output). */
  issues?: Issue[];
  /** Why a person denied the call (denied). */
  reason?: string;
  details?: Record<string, unknown>;
}

/** A call's outcome as data: a tool failure never ends the run that asked for it. */
export type ToolResult = { ok: true; value: unknown } | { ok: false; error: ToolErrorInfo };

/** A call that waits for a person: it has no result yet; the same call asked again after the decision has one. */
export interface PendingCall {
  pending: {
    approvalId: string;
    /** Milliseconds since the epoch; undecided by then, the call will not run. */
    expiresAt: number;
    /** The question put to a person. */
    message: string;
  };
}

/** What the executor answers for a call: its result, or that it waits for a person. */
export type CallOutcome = ToolResult | PendingCall;

export function success(value: unknown): ToolResult {
  return { ok: true, value: value === undefined ? null : value };
}

/** The result a ToolCallError stands for. */
export function failure(error: ToolCallError): ToolResult {
  const info: ToolErrorInfo = { kind: error.kind, message: error.message };
  if (error.issues.length) info.issues = [...error.issues];
  if (error instanceof ToolDenied && error.reason) info.reason = error.reason;
  if (error instanceof ToolError && error.details) info.details = error.details;
  return { ok: false, error: info };
}

/** The outcome of a call that waits for a person. */
export function pendingCall(pending: PendingCall["pending"]): PendingCall {
  return { pending };
}

/** True when the call waits for a person. */
export function isPending(outcome: CallOutcome): outcome is PendingCall {
  return "pending" in outcome;
}
