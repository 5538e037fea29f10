/**
 * A failure a LangChain tool reports on purpose, meant for the model (LangChain.js has no such
 * class; Python's `ToolException` is the model). Exported tools throw it for model-visible errors;
 * imported tools may throw it, or any error named "ToolException", to fail with a ToolError.
 */
export class ToolException extends Error {
  override readonly name = "ToolException";
  readonly kind = "tool_exception";
  constructor(
    message: string,
    /** The executor's error kind behind it, e.g. "invalid_arguments", "denied". */
    readonly errorKind?: string,
  ) {
    super(message);
  }
}

/** True for our ToolException and for any error named "ToolException" (other libraries' own classes). */
export function isToolException(error: unknown): error is Error {
  return error instanceof Error && error.name === "ToolException";
}
