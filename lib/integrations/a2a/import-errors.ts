import { DomainError } from "../../errors";

/** The remote agent could not be reached, refused the request, answered too much or answered no card. */
export class A2AAgentUnreachable extends DomainError<"server_unreachable"> {
  override readonly name = "A2AAgentUnreachable";
  constructor(message: string) {
    super("server_unreachable", message);
  }
}

/** Import settings or an agent card the console refuses: a URL that is not http(s), a bad prefix, a card with no usable interface or too many skills. */
export class A2AOptionsError extends DomainError<"invalid_options"> {
  override readonly name = "A2AOptionsError";
  constructor(message: string) {
    super("invalid_options", message);
  }
}
