import { answerableError, statusOf } from "../errors";
import type { Logger } from "../log";
import type { RouteContext } from "./request-input";
import { errorResponse } from "./respond";

/** A web-standard request handler, as Next's route files and the node adapter mount it. */
export type Handler = (request: Request, context?: RouteContext) => Promise<Response>;

export { INTERNAL_ERROR_MESSAGE } from "../errors";

/** What a 401 says a client must send (RFC 9110 wants the challenge on every 401). */
const BEARER_CHALLENGE = { "www-authenticate": 'Bearer realm="agui-console", error="invalid_token"' };

/**
 * The answer for anything a handler threw: a DomainError gets its kind's status and its own
 * message and issues (a 401 with the bearer challenge); a storage fault (read-only, locked, disk error) is logged and answered 503
 * database_unavailable; anything else is logged and answered 500 without details.
 */
export function errorAnswer(error: unknown, request: Request, logger: Logger): Response {
  const answer = answerableError(error, (message, cause) =>
    logger.error(message, { url: request.url, method: request.method, error: cause }),
  );
  return errorResponse(
    statusOf(answer.kind),
    answer.kind,
    answer.message,
    answer.issues,
    answer.kind === "unauthenticated" ? BEARER_CHALLENGE : undefined,
  );
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
