/** A tool definition that cannot be registered: a bad name, option or schema. */
export class ToolDefinitionError extends Error {
  override readonly name = "ToolDefinitionError";
  readonly kind = "tool_definition_error";
  constructor(
    message: string,
    /** Where in the definition the problem is, e.g. "inputSchema/properties/city/type". */
    readonly path?: string,
  ) {
    super(message);
  }
}

/** A tool name that is already registered. */
export class DuplicateTool extends Error {
  override readonly name = "DuplicateTool";
  readonly kind = "duplicate_tool";
  constructor(readonly toolName: string) {
    super(`A tool named "${toolName}" is already registered`);
  }
}

/** A tool used where it does not belong: a format its targets exclude, or an unknown name in an admin call. */
export class ToolUsageError extends Error {
  override readonly name = "ToolUsageError";
  readonly kind = "tool_usage_error";
}
