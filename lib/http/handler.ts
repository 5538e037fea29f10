import { isDomainError, statusOf } from "../errors";
import { storageFaultOf } from "../errors/storage-fault";
import type { Logger } from "../log";
import type { RouteContext } from "./request-input";
import { errorResponse } from "./respond";

/** A web-standard request handler, as Next's route files and the node adapter mount it. */
export type Handler = (request: Request, context?: RouteContext) => Promise<Response>;

/** The message of every 500: the details go to the server log, never to the client. */
export const INTERNAL_ERROR_MESSAGE = "The console could not answer this request; the server log has the details.";

/** What a 401 says a client must send (RFC 9110 wants the challenge on every 401). */
const BEARER_CHALLENGE = { "www-authenticate": 'Bearer realm="agui-console", error="invalid_token"' };

/**
 * The answer for anything a handler threw: a DomainError gets its kind's status and its own
 * message and issues (a 401 with the bearer challenge); a storage fault (read-only, locked, disk error) is logged and answered 503
 * database_unavailable; anything else is logged and answered 500 without details.
 */
export function errorAnswer(error: unknown, request: Request, logger: Logger): Response {
  if (isDomainError(error))
    return errorResponse(
      statusOf(error.kind),
      error.kind,
      error.message,
      error.issues,
      error.kind === "unauthenticated" ? BEARER_CHALLENGE : undefined,
    );
  const fault = storageFaultOf(error);
  if (fault) {
    logger.error("the database refused a statement", { url: request.url, method: request.method, error });
    return errorResponse(statusOf(fault.kind), fault.kind, fault.message);
  }
  logger.error("unhandled error in route", { url: request.url, method: request.method, error });
  return errorResponse(500, "internal_error", INTERNAL_ERROR_MESSAGE);
}

/** `handler`, answering whatever it throws with errorAnswer. */
export function answerErrors(handler: Handler, logger: Logger): Handler {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      return errorAnswer(error, request, logger);
    }
  };
}
