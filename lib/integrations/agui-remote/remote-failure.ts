import { AGUIError } from "@ag-ui/core";
import { DomainError } from "../../errors";
import { AddressNotAllowed } from "../../net";

/** Why a remote agent's run could not go on, as the RUN_ERROR `code` says it. */
export type RemoteFailureCode =
  | "remote_address_refused"
  | "remote_unreachable"
  | "remote_unauthorized"
  | "remote_not_found"
  | "remote_http_error"
  | "remote_bad_stream"
  | "remote_timeout";

/**
 * A remote AG-UI agent failed in a way the console can name: its message is written for the person
 * in the chat (it says which endpoint and what to change) and carries nothing the remote chose
 * beyond a short, cleaned excerpt of its error answer.
 */
export class RemoteAgentFailure extends Error {
  override readonly name = "RemoteAgentFailure";
  constructor(
    readonly code: RemoteFailureCode,
    message: string,
  ) {
    super(message);
  }
}

/** The endpoint could not be tested or registered: unreachable, refused, or not an AG-UI endpoint. */
export class AguiEndpointUnreachable extends DomainError<"server_unreachable"> {
  override readonly name = "AguiEndpointUnreachable";
  constructor(message: string) {
    super("server_unreachable", message);
  }
}

/** Settings of a remote AG-UI source the console refuses (a name, a URL, an allowance). */
export class AguiSourceOptionsError extends DomainError<"invalid_options"> {
  override readonly name = "AguiSourceOptionsError";
  constructor(message: string) {
    super("invalid_options", message);
  }
}

/** At most this much of a remote's error answer is read, and less of it is shown. */
export const ERROR_BODY_BYTES = 8 * 1024;
const EXCERPT_CHARS = 200;

/**
 * What went wrong with a request to `endpoint`, from whatever the fetch, the HTTP layer of
 * @ag-ui/client, its event schemas or its verifier threw.
 */
export function describeFailure(error: unknown, endpoint: string): RemoteAgentFailure {
  if (error instanceof RemoteAgentFailure) return error;
  const where = shown(endpoint);
  if (error instanceof AddressNotAllowed)
    return new RemoteAgentFailure(
      "remote_address_refused",
      `The console may not connect to the remote agent at ${where}: ${error.message}. An admin can allow the address on the source (or in OUTBOUND_ALLOW).`,
    );
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number") return httpFailure(status, (error as { payload?: unknown }).payload, where);
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "ZodError")
    return new RemoteAgentFailure("remote_bad_stream", `The remote agent at ${where} sent an event the AG-UI protocol does not allow.`);
  if (error instanceof AGUIError || name === "AGUIError")
    return new RemoteAgentFailure(
      "remote_bad_stream",
      `The remote agent at ${where} broke the AG-UI event order: ${excerpt((error as Error).message)}`,
    );
  if (error instanceof Error && /^Invalid event|^SSE buffer/.test(error.message))
    return new RemoteAgentFailure("remote_bad_stream", `The remote agent at ${where} sent a malformed stream: ${excerpt(error.message)}`);
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const why = typeof cause?.code === "string" ? cause.code : typeof cause?.message === "string" ? excerpt(cause.message) : undefined;
  return new RemoteAgentFailure(
    "remote_unreachable",
    `The remote agent at ${where} could not be reached${why ? ` (${why})` : ""}. Check that it runs and that the URL is right.`,
  );
}

/** The failure an HTTP error answer stands for; `payload` is the (already bounded) body. */
export function httpFailure(status: number, payload: unknown, where: string): RemoteAgentFailure {
  if (status === 401 || status === 403)
    return new RemoteAgentFailure(
      "remote_unauthorized",
      `The remote agent at ${where} refused the console's credentials (HTTP ${status}). Check the source's token or headers.`,
    );
  if (status === 404) return new RemoteAgentFailure("remote_not_found", `There is no AG-UI agent at ${where} (HTTP 404). Check the URL.`);
  if (status >= 300 && status < 400)
    return new RemoteAgentFailure(
      "remote_http_error",
      `The remote agent at ${where} answered with a redirect (HTTP ${status}); register the URL it redirects to.`,
    );
  const said = messageOf(payload);
  return new RemoteAgentFailure(
    "remote_http_error",
    `The remote agent at ${where} answered HTTP ${status}${said ? `: ${excerpt(said)}` : ""}.`,
  );
}

/** The URL as messages show it: no query string, no fragment (they may hold secrets). */
export function shown(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return `${url.origin}${url.pathname}`;
  } catch {
    return "(an invalid URL)";
  }
}

function messageOf(payload: unknown): string | undefined {
  if (typeof payload === "string") return payload;
  const error = (payload as { error?: unknown } | null)?.error;
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | null)?.message ?? (payload as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : undefined;
}

/** A short, single-line excerpt of text another machine chose. */
function excerpt(text: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}
