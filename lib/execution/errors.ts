import type { SchemaIssue } from "../tools/schema";

/**
 * The error kinds a model (or a remote client) may see in a tool result. Every surface maps
 * these, and only these, into its own format; anything else stays in the server log.
 */
export const MODEL_VISIBLE_KINDS = [
  "tool_not_found",
  "invalid_arguments",
  "denied",
  "approval_expired",
  "cancelled",
  "timeout",
  "failed",
  "tool_error",
  "invalid_output",
] as const;
export type ModelVisibleKind = (typeof MODEL_VISIBLE_KINDS)[number];

/** Every kind a call can end with; `approval_pending` means the call waits for a person. */
export type ErrorKind = ModelVisibleKind | "approval_pending";

/** Base of the executor's error kinds: a stable `name`, a `kind`, and a message chosen for a model. */
export abstract class ToolCallError extends Error {
  abstract readonly kind: ErrorKind;
}

/** No enabled tool has this name. */
export class ToolNotFound extends ToolCallError {
  override readonly name = "ToolNotFound";
  readonly kind = "tool_not_found";
  constructor(readonly toolName: string) {
    super(`No tool named "${toolName}" is available`);
  }
}

/** The arguments do not match the tool's input schema. */
export class ToolArgsInvalid extends ToolCallError {
  override readonly name = "ToolArgsInvalid";
  readonly kind = "invalid_arguments";
  constructor(
    readonly toolName: string,
    readonly issues: SchemaIssue[],
  ) {
    super(`Invalid arguments for ${toolName}: ${issues.map((i) => `${i.path || "/"} ${i.message}`).join("; ")}`);
  }
}

/** A person denied the call. */
export class ToolDenied extends ToolCallError {
  override readonly name = "ToolDenied";
  readonly kind = "denied";
  constructor(
    readonly toolName: string,
    readonly reason?: string,
  ) {
    super(`The call to ${toolName} was denied${reason ? `: ${reason}` : ""}`);
  }
}

/** Nobody decided the call before its approval expired. */
export class ToolApprovalExpired extends ToolCallError {
  override readonly name = "ToolApprovalExpired";
  readonly kind = "approval_expired";
  constructor(readonly toolName: string) {
    super(`The approval for ${toolName} expired before anyone decided it; the call did not run`);
  }
}

/** The call was cancelled (its run stopped, or its approval was withdrawn) and did not finish. */
export class ToolCancelled extends ToolCallError {
  override readonly name = "ToolCancelled";
  readonly kind = "cancelled";
  constructor(readonly toolName: string) {
    super(`The call to ${toolName} was cancelled`);
  }
}

/** The call waits for a person: not a failure, a pause. */
export class ApprovalPending extends ToolCallError {
  override readonly name = "ApprovalPending";
  readonly kind = "approval_pending";
  constructor(
    readonly toolName: string,
    readonly approvalId: string,
    readonly expiresAt: number,
  ) {
    super(`The call to ${toolName} waits for approval`);
  }
}

/** The tool did not answer within its timeout. */
export class ToolTimeout extends ToolCallError {
  override readonly name = "ToolTimeout";
  readonly kind = "timeout";
  constructor(
    readonly toolName: string,
    readonly timeoutMs: number,
  ) {
    super(`${toolName} did not answer within ${timeoutMs} ms`);
  }
}

/** The tool failed unexpectedly (after its retries); details are in the server log only. */
export class ToolFailed extends ToolCallError {
  override readonly name = "ToolFailed";
  readonly kind = "failed";
  constructor(
    readonly toolName: string,
    readonly attempts: number,
  ) {
    super(`${toolName} failed${attempts > 1 ? ` after ${attempts} attempts` : ""}`);
  }
}

/**
 * A failure a tool reports on purpose, with a message meant for the model ("order 12 not found").
 * Throw it from a handler; the executor returns it as a result, it does not end the run.
 */
export class ToolError extends ToolCallError {
  override readonly name = "ToolError";
  readonly kind = "tool_error";
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The tool answered with a value its output schema refuses. */
export class ToolOutputInvalid extends ToolCallError {
  override readonly name = "ToolOutputInvalid";
  readonly kind = "invalid_output";
  constructor(
    readonly toolName: string,
    readonly issues: SchemaIssue[],
  ) {
    super(`${toolName} returned a value that does not match its output schema`);
  }
}

/** Throw (or mark an error with `retryable = true`) for a transient failure worth another attempt. */
export class RetryableError extends Error {
  override readonly name = "RetryableError";
  readonly retryable = true;
}

/** True when an error asks to be retried: RetryableError or any error with `retryable: true`. */
export function isRetryable(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { retryable?: unknown }).retryable === true;
}
