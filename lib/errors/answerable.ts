import { DomainError, isDomainError } from "./domain-error";
import { ERROR_KINDS, type ErrorKind } from "./kinds";
import { storageFaultOf } from "./storage-fault";

/** The message of every internal error: the details go to the server log, never to the caller. */
export const INTERNAL_ERROR_MESSAGE = "The console could not answer this request; the server log has the details.";

/**
 * What any surface answers for a thrown error, as a DomainError: a DomainError as it is, a storage
 * fault as database_unavailable, anything else as internal_error with no details. `log` hears the
 * two that need the server log (a storage fault, a programming error), with the original error.
 */
export function answerableError(error: unknown, log: (message: string, error: unknown) => void): DomainError {
  if (isDomainError(error)) return error;
  const fault = storageFaultOf(error);
  if (fault) {
    log("the database refused a statement", error);
    return fault;
  }
  log("unhandled error", error);
  return new DomainError("internal_error", INTERNAL_ERROR_MESSAGE);
}

/** A JSON-RPC error object of `kind`: the code of the console's kind table, the kind in `data`. */
export function rpcErrorObject(kind: ErrorKind, message: string): { code: number; message: string; data: { kind: ErrorKind } } {
  return { code: ERROR_KINDS[kind].rpc, message, data: { kind } };
}
