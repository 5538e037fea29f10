/** The endpoint answered with a non-2xx status. Carries the status only: never headers or body. */
export class AgentHTTPError extends Error {
  override readonly name = "AgentHTTPError";
  readonly kind = "http";
  constructor(readonly status: number) {
    super(`The agent endpoint answered HTTP ${status}`);
  }
}

/**
 * Why a stream failed after the request was sent:
 * - `content_type`: the response is not `text/event-stream`;
 * - `timeout`: no bytes arrived within the read timeout;
 * - `eof`: the stream ended before the run's RUN_FINISHED or RUN_ERROR;
 * - `protocol`: the events break AG-UI's ordering rules (checked by @ag-ui/client's verifier),
 *   or a frame outgrew the buffer limit;
 * - `closed`: the client was closed with `aclose()`.
 */
export type AgentStreamErrorReason = "content_type" | "timeout" | "eof" | "protocol" | "closed";

/** A transport or protocol failure of an AG-UI event stream. */
export class AgentStreamError extends Error {
  override readonly name = "AgentStreamError";
  readonly kind = "stream";
  constructor(
    readonly reason: AgentStreamErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/** The RunAgentInput handed to a client does not match the AG-UI schema; nothing was sent. */
export class AgentInputError extends Error {
  override readonly name = "AgentInputError";
  readonly kind = "input";
  constructor(readonly issues: { path: string; message: string }[]) {
    super(`Invalid RunAgentInput: ${issues.map((i) => `${i.path || "/"} ${i.message}`).join("; ")}`);
  }
}
