import type { ErrorKind } from "./kinds";

/** One problem with a value, located by JSON Pointer ("" is the root). */
export interface Issue {
  path: string;
  message: string;
}

/**
 * The base of every error the console means to answer with: a stable `kind` (a row of
 * ERROR_KINDS), a message chosen for whoever made the request, and the issues found in what they
 * sent. Anything else that is thrown is a programming error: a 500 with the details in the log.
 */
export class DomainError<K extends ErrorKind = ErrorKind> extends Error {
  readonly kind: K;
  readonly issues: readonly Issue[];

  constructor(kind: K, message: string, options: { issues?: readonly Issue[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.issues = options.issues ?? [];
  }
}

/** True for an error the console answers with its kind. */
export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
