import type { SchemaIssue } from "../tools/schema";
import type { ErrorKind } from "./errors";
import { ApprovalPending, ToolArgsInvalid, type ToolCallError, ToolDenied, ToolError, ToolOutputInvalid } from "./errors";

export interface ToolErrorInfo {
  kind: ErrorKind;
  message: string;
  /** Where the arguments or output went wrong (invalid_arguments, invalid_output). */
  issues?: SchemaIssue[];
  /** Why a person denied the call (denied). */
  reason?: string;
  /** The approval the call waits for (approval_pending). */
  approvalId?: string;
  expiresAt?: number;
  details?: Record<string, unknown>;
}

/** A call's outcome as data: a tool failure never ends the run that asked for it. */
export type ToolResult = { ok: true; value: unknown } | { ok: false; error: ToolErrorInfo };

export function success(value: unknown): ToolResult {
  return { ok: true, value: value === undefined ? null : value };
}

/** The result a ToolCallError stands for. */
export function failure(error: ToolCallError): ToolResult {
  const info: ToolErrorInfo = { kind: error.kind, message: error.message };
  if (error instanceof ToolArgsInvalid || error instanceof ToolOutputInvalid) info.issues = error.issues;
  if (error instanceof ToolDenied && error.reason) info.reason = error.reason;
  if (error instanceof ApprovalPending) {
    info.approvalId = error.approvalId;
    info.expiresAt = error.expiresAt;
  }
  if (error instanceof ToolError && error.details) info.details = error.details;
  return { ok: false, error: info };
}

/** True when the call waits for a person. */
export function isPending(result: ToolResult): result is { ok: false; error: ToolErrorInfo & { kind: "approval_pending"; approvalId: string } } {
  return !result.ok && result.error.kind === "approval_pending";
}
