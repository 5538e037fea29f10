import type { SchemaIssue } from "../tools/schema";
import type { ApprovalStatus } from "../db/schema";

/** No approval has this id. */
export class ApprovalNotFound extends Error {
  override readonly name = "ApprovalNotFound";
  readonly kind = "approval_not_found";
  constructor(readonly approvalId: string) {
    super(`No approval with id "${approvalId}"`);
  }
}

/** The approval was decided (or withdrawn, or used) before this decision. */
export class ApprovalAlreadyDecided extends Error {
  override readonly name = "ApprovalAlreadyDecided";
  readonly kind = "approval_already_decided";
  constructor(
    readonly approvalId: string,
    readonly status: ApprovalStatus,
  ) {
    super(`Approval ${approvalId} is already ${status}`);
  }
}

/** The approval expired before this decision. */
export class ApprovalExpired extends Error {
  override readonly name = "ApprovalExpired";
  readonly kind = "approval_expired";
  constructor(readonly approvalId: string) {
    super(`Approval ${approvalId} has expired`);
  }
}

/** A decision the store refuses as given: edited arguments that fail the tool's schema, say. */
export class ApprovalDecisionInvalid extends Error {
  override readonly name = "ApprovalDecisionInvalid";
  readonly kind = "approval_decision_invalid";
  constructor(
    message: string,
    readonly issues: SchemaIssue[] = [],
  ) {
    super(message);
  }
}

/** An approval that cannot allow this call: not approved, already used, or bound to another call. */
export class ApprovalNotUsable extends Error {
  override readonly name = "ApprovalNotUsable";
  readonly kind = "approval_not_usable";
  constructor(
    readonly approvalId: string,
    reason: string,
  ) {
    super(`Approval ${approvalId} cannot be used: ${reason}`);
  }
}
