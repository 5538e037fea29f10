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
/**
 * Marks every DomainError. Next.js may bundle this module more than once (a page's chunk and a
 * route's), and the services are built by whichever loads first: an error thrown by a store built
 * in one chunk is not `instanceof` the other chunk's class, so the check goes by this mark.
 */
const DOMAIN_ERROR = Symbol.for("agui-console.DomainError");

export class DomainError<K extends ErrorKind = ErrorKind> extends Error {
  readonly [DOMAIN_ERROR] = true;
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
  return typeof error === "object" && error !== null && (error as { [DOMAIN_ERROR]?: unknown })[DOMAIN_ERROR] === true;
}
