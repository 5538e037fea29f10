import { getServices, type Services } from "../services";
import type { RouteContext } from "./request-input";
import { errorResponse } from "./respond";

export type Handler = (request: Request, context?: RouteContext) => Promise<Response>;

/**
 * A route handler built on first request from the process's services, so that importing a route
 * module (as `next build` does) opens no database. Unexpected errors become a 500 with no details;
 * the details go to the server log.
 */
export function route(build: (services: Services) => Handler): Handler {
  let handler: Handler | undefined;
  let services: Services | undefined;
  return async (request, context) => {
    try {
      services ??= getServices();
      handler ??= build(services);
      return await handler(request, context);
    } catch (error) {
      services?.logger.error("unhandled error in route", { url: request.url, method: request.method, error });
      if (!services) console.error(error);
      return errorResponse(500, "internal_error", "The console could not answer this request; the server log has the details.");
    }
  };
}
