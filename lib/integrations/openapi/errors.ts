import { DomainError } from "../../errors";

/** A document that cannot become tools: invalid JSON or YAML, not OpenAPI 3.x, broken or remote $refs, no operations. */
export class OpenApiDocumentError extends DomainError<"invalid_document"> {
  override readonly name = "OpenApiDocumentError";
  constructor(
    message: string,
    /** Each problem found, for a list in the import dialog (the error's issues). */
    readonly problems: string[] = [],
  ) {
    super("invalid_document", message, { issues: problems.map((problem) => ({ path: "", message: problem })) });
  }
}

/** Import options the console refuses: a base URL that is not http(s) or points at a private address, unknown operations, a bad prefix. */
export class OpenApiOptionsError extends DomainError<"invalid_options"> {
  override readonly name = "OpenApiOptionsError";
  constructor(message: string) {
    super("invalid_options", message);
  }
}

/** The document's URL could not be read: refused address, timeout, HTTP error or too large. */
export class OpenApiFetchError extends DomainError<"document_unreachable"> {
  override readonly name = "OpenApiFetchError";
  constructor(message: string) {
    super("document_unreachable", message);
  }
}

/** A document nested deeper than the console parses or walks (checked before anything recursive runs). */
export class OpenApiDocumentTooDeep extends DomainError<"too_deep"> {
  override readonly name = "OpenApiDocumentTooDeep";
  constructor(message: string) {
    super("too_deep", message);
  }
}
