import { DomainError } from "../errors";

/** A tool definition that cannot be registered: a bad name, option or schema. */
export class ToolDefinitionError extends DomainError<"invalid_tool_definition"> {
  override readonly name = "ToolDefinitionError";
  constructor(
    message: string,
    /** Where in the definition the problem is, e.g. "inputSchema/properties/city/type". */
    readonly path?: string,
  ) {
    super("invalid_tool_definition", message, { issues: path ? [{ path: `/${path}`, message }] : [] });
  }
}

/** A tool name that is already registered. */
export class DuplicateTool extends DomainError<"duplicate_tool"> {
  override readonly name = "DuplicateTool";
  constructor(readonly toolName: string) {
    super("duplicate_tool", `A tool named "${toolName}" is already registered`);
  }
}

/** A tool used where it does not belong: a format its targets exclude, or an unknown name in an admin call. */
export class ToolUsageError extends DomainError<"tool_not_usable"> {
  override readonly name = "ToolUsageError";
  constructor(message: string) {
    super("tool_not_usable", message);
  }
}
