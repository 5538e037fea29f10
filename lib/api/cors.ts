import { assertServedHost } from "../auth/authenticate";
import { listedOrigin, preflightAnswer, withCorsHeaders, type CorsEndpoint, type OriginListed } from "../http/cors";
import { answerErrors, type Handler } from "../http/handler";
import type { Services } from "../services";

/** What pages elsewhere may send to and read from the AG-UI endpoint. */
export const AGUI_CORS: CorsEndpoint = {
  methods: ["GET", "POST"],
  headers: ["content-type", "authorization", "accept"],
  expose: ["content-type", "www-authenticate"],
};

/** The MCP endpoint: GET and DELETE are listed so that a client reads their 405 rather than a network error. */
export const MCP_CORS: CorsEndpoint = {
  methods: ["POST", "GET", "DELETE"],
  headers: ["content-type", "authorization", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id"],
  expose: ["content-type", "mcp-session-id", "mcp-protocol-version", "www-authenticate"],
};

/** The A2A JSON-RPC endpoint (v1.0 and v0.3 header names). */
export const A2A_CORS: CorsEndpoint = {
  methods: ["POST", "GET"],
  headers: ["content-type", "authorization", "accept", "a2a-version", "a2a-extensions", "x-a2a-extensions"],
  expose: ["content-type", "a2a-extensions", "x-a2a-extensions", "www-authenticate"],
};

/**
 * CORS for the endpoints other apps embed. An origin is listed when CORS_ORIGINS names it or an
 * active token lists it: a preflight carries no token, so it is answered for origins listed
 * anywhere, and the request that follows is then held to CORS_ORIGINS and its own token's list
 * (authenticate refuses it 403 origin_not_allowed otherwise). Answers, errors included, carry
 * Access-Control-Allow-Origin only for a listed origin; an unlisted one gets no CORS header at all.
 */
export function endpointCors(services: Pick<Services, "config" | "access" | "logger">) {
  const { config, access, logger } = services;
  const listed: OriginListed = (origin) => config.CORS_ORIGINS.includes(origin) || access.tokens.listsOrigin(origin);

  return {
    /** The OPTIONS handler of an endpoint (421 for a Host the console does not serve). */
    preflight(endpoint: CorsEndpoint): Handler {
      return answerErrors(async (request) => {
        assertServedHost(request, access.allowedHosts);
        return preflightAnswer(request, endpoint, listed);
      }, logger);
    },
    /** `handler` with the CORS headers of `endpoint` on each of its answers. */
    wrap(endpoint: CorsEndpoint, handler: Handler): Handler {
      return async (request, context) => withCorsHeaders(await handler(request, context), await listedOrigin(request, listed), endpoint);
    },
  };
}
