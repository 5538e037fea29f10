export { DomainError, isDomainError, type Issue } from "./domain-error";
export { ERROR_KINDS, statusOf, type ErrorKind } from "./kinds";
export { answerableError, rpcErrorObject, INTERNAL_ERROR_MESSAGE } from "./answerable";
