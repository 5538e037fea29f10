export { DomainError, isDomainError, type Issue } from "./domain-error";
export { ERROR_KINDS, rpcCodeOf, statusOf, type ErrorKind } from "./kinds";
