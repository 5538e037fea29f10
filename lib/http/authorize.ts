import { authenticate, requireScope, type AccessPolicy } from "../auth/authenticate";
import type { Principal } from "../auth/principal";
import type { TokenScope } from "../auth/tokens";
import type { Logger } from "../log";
import { answerErrors, type Handler } from "./handler";
import type { RouteContext } from "./request-input";

/** A handler that runs for an authenticated caller holding the scope it was declared with. */
export type ProtectedHandler = (request: Request, caller: Principal, context?: RouteContext) => Promise<Response>;

/** Declares a handler's scope: `protect("tools", handler)` is the handler every caller without "tools" is refused. */
export type Protect = (scope: TokenScope, handler: ProtectedHandler) => Handler;

/**
 * The `protect` of one access policy. Its handlers authenticate the caller (421 foreign Host,
 * 401 no or bad token; the socket's peer, when the context has one, for anonymous loopback), check
 * the scope (403), and answer what they throw with errorAnswer.
 */
export function protector(access: AccessPolicy, logger: Logger): Protect {
  return (scope, handler) =>
    answerErrors(
      async (request, context) => handler(request, requireScope(await authenticate(request, access, context?.peer), scope), context),
      logger,
    );
}
