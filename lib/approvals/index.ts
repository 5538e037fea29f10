export * from "./errors";
export { ApprovalStore, approvalKey, APPROVAL_STATUSES, DEFAULT_APPROVAL_TTL_MS } from "./store";
export type {
  Approval,
  ApprovalEvent,
  ApprovalStatus,
  ApprovalRequest,
  Decision,
  CallBinding,
  ApprovalFilter,
  ApprovalPage,
  ApprovalChange,
  ApprovalStoreOptions,
} from "./store";
export { ApprovalGate, requiresApproval } from "./gate";
export { SqliteGrants, type GrantStore, type Grant } from "../db/grants";
export { decideApproval, type DecideDeps, type DecisionInput } from "./decide";
