/** A document that cannot become tools: invalid JSON or YAML, not OpenAPI 3.x, broken or remote $refs, no operations. */
export class OpenApiDocumentError extends Error {
  override readonly name = "OpenApiDocumentError";
  readonly kind = "openapi_document_error";
  constructor(
    message: string,
    /** Each problem found, for a list in the import dialog. */
    readonly problems: string[] = [],
  ) {
    super(problems.length ? `${message}:\n- ${problems.join("\n- ")}` : message);
  }
}

/** Import options the console refuses: a base URL that is not http(s) or points at a private address, unknown operations, a bad prefix. */
export class OpenApiOptionsError extends Error {
  override readonly name = "OpenApiOptionsError";
  readonly kind = "openapi_options_error";
}

/** The document's URL could not be read: refused address, timeout, HTTP error or too large. */
export class OpenApiFetchError extends Error {
  override readonly name = "OpenApiFetchError";
  readonly kind = "openapi_fetch_error";
}
