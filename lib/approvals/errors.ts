import type { ApprovalStatus } from "../db/schema";
import { DomainError, type Issue } from "../errors";

/** No approval has this id. */
export class ApprovalNotFound extends DomainError<"approval_not_found"> {
  override readonly name = "ApprovalNotFound";
  constructor(readonly approvalId: string) {
    super("approval_not_found", `No approval with id "${approvalId}"`);
  }
}

/** The approval was decided (or withdrawn, or used) before this decision. */
export class ApprovalAlreadyDecided extends DomainError<"approval_already_decided"> {
  override readonly name = "ApprovalAlreadyDecided";
  constructor(
    readonly approvalId: string,
    readonly status: ApprovalStatus,
  ) {
    super("approval_already_decided", `Approval ${approvalId} is already ${status}`);
  }
}

/** The approval expired before this decision. */
export class ApprovalExpired extends DomainError<"approval_expired"> {
  override readonly name = "ApprovalExpired";
  constructor(readonly approvalId: string) {
    super("approval_expired", `Approval ${approvalId} has expired`);
  }
}

/** A decision the store refuses as given: edited arguments that fail the tool's schema, say. */
export class ApprovalDecisionInvalid extends DomainError<"approval_decision_invalid"> {
  override readonly name = "ApprovalDecisionInvalid";
  constructor(message: string, issues: readonly Issue[] = []) {
    super("approval_decision_invalid", message, { issues });
  }
}

/** An approval that cannot allow this call: not approved, already used, or bound to another call. */
export class ApprovalNotUsable extends DomainError<"approval_not_usable"> {
  override readonly name = "ApprovalNotUsable";
  constructor(
    readonly approvalId: string,
    reason: string,
  ) {
    super("approval_not_usable", `Approval ${approvalId} cannot be used: ${reason}`);
  }
}
