import { DomainError, type Issue } from "../errors";

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
  "outcome_unknown",
  "timeout",
  "failed",
  "tool_error",
  "invalid_output",
] as const;
export type ModelVisibleKind = (typeof MODEL_VISIBLE_KINDS)[number];

/** Every kind a call can end with. A call that waits for a person has not ended: see PendingCall. */
export type ToolErrorKind = ModelVisibleKind;

/** Base of the executor's error kinds: a stable `name`, a `kind`, and a message chosen for a model. */
export abstract class ToolCallError<K extends ToolErrorKind = ToolErrorKind> extends DomainError<K> {}

/** No enabled tool has this name. */
export class ToolNotFound extends ToolCallError<"tool_not_found"> {
  override readonly name = "ToolNotFound";
  constructor(readonly toolName: string) {
    super("tool_not_found", `No tool named "${toolName}" is available`);
  }
}

/** The arguments do not match the tool's input schema. */
export class ToolArgsInvalid extends ToolCallError<"invalid_arguments"> {
  override readonly name = "ToolArgsInvalid";
  constructor(
    readonly toolName: string,
    issues: readonly Issue[],
  ) {
    super("invalid_arguments", `Invalid arguments for ${toolName}: ${issues.map((i) => `${i.path || "/"} ${i.message}`).join("; ")}`, {
      issues,
    });
  }
}

/** A person denied the call. */
export class ToolDenied extends ToolCallError<"denied"> {
  override readonly name = "ToolDenied";
  constructor(
    readonly toolName: string,
    readonly reason?: string,
  ) {
    super("denied", `The call to ${toolName} was denied${reason ? `: ${reason}` : ""}`);
  }
}

/** Nobody decided the call before its approval expired. */
export class ToolApprovalExpired extends ToolCallError<"approval_expired"> {
  override readonly name = "ToolApprovalExpired";
  constructor(readonly toolName: string) {
    super("approval_expired", `The approval for ${toolName} expired before anyone decided it; the call did not run`);
  }
}

/** The call was cancelled (its run stopped, or its approval was withdrawn) and did not finish. */
export class ToolCancelled extends ToolCallError<"cancelled"> {
  override readonly name = "ToolCancelled";
  constructor(readonly toolName: string) {
    super("cancelled", `The call to ${toolName} was cancelled`);
  }
}

/**
 * The call was approved and started, and the console stopped (a crash, a kill) before its outcome
 * was recorded: the tool may or may not have done its work. It is not run again under the same
 * approval; running it again takes a new call and a new decision.
 */
export class ToolOutcomeUnknown extends ToolCallError<"outcome_unknown"> {
  override readonly name = "ToolOutcomeUnknown";
  constructor(readonly toolName: string) {
    super(
      "outcome_unknown",
      `The call to ${toolName} was cut off before its outcome was recorded (the console stopped while it ran): it may or may not have run. It will not run again under this approval; check before asking for it again.`,
    );
  }
}

/**
 * Thrown by the exporters' call helpers (Gemini, Anthropic, LangChain) when a call waits for a
 * person: it has no result a model could read yet. The executor itself returns a PendingCall.
 */
export class ApprovalPending extends DomainError<"approval_pending"> {
  override readonly name = "ApprovalPending";
  constructor(
    readonly toolName: string,
    readonly approvalId: string,
    readonly expiresAt: number,
  ) {
    super("approval_pending", `The call to ${toolName} waits for approval`);
  }
}

/** The tool did not answer within its timeout. */
export class ToolTimeout extends ToolCallError<"timeout"> {
  override readonly name = "ToolTimeout";
  constructor(
    readonly toolName: string,
    readonly timeoutMs: number,
  ) {
    super("timeout", `${toolName} did not answer within ${timeoutMs} ms`);
  }
}

/** The tool failed unexpectedly (after its retries); details are in the server log only. */
export class ToolFailed extends ToolCallError<"failed"> {
  override readonly name = "ToolFailed";
  constructor(
    readonly toolName: string,
    readonly attempts: number,
  ) {
    super("failed", `${toolName} failed${attempts > 1 ? ` after ${attempts} attempts` : ""}`);
  }
}

/**
 * A failure a tool reports on purpose, with a message meant for the model ("order 12 not found").
 * Throw it from a handler; the executor returns it as a result, it does not end the run.
 */
export class ToolError extends ToolCallError<"tool_error"> {
  override readonly name = "ToolError";
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super("tool_error", message);
  }
}

/** The tool answered with a value its output schema refuses. */
export class ToolOutputInvalid extends ToolCallError<"invalid_output"> {
  override readonly name = "ToolOutputInvalid";
  constructor(
    readonly toolName: string,
    issues: readonly Issue[],
  ) {
    super("invalid_output", `${toolName} returned a value that does not match its output schema`, { issues });
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
