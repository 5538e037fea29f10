import { DomainError } from "../../errors";

/** The MCP server could not be reached or did not complete the MCP handshake (refused address, no answer, HTTP error, a process that would not start). */
export class McpServerUnreachable extends DomainError<"server_unreachable"> {
  override readonly name = "McpServerUnreachable";
  constructor(message: string) {
    super("server_unreachable", message);
  }
}

/** Import settings the console refuses: a URL that is not http(s), a command that is not a program, a bad prefix, a server that never ends its tool list. */
export class McpOptionsError extends DomainError<"invalid_options"> {
  override readonly name = "McpOptionsError";
  constructor(message: string) {
    super("invalid_options", message);
  }
}
