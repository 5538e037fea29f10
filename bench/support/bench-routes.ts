// The baseline routes the production build serves for `npm run bench` (app/api/bench/): the least a
// Next route can be, and the bare SDK servers of ./bare-sdk.ts, so that the MCP, A2A and AG-UI
// routes are timed through Next against them in the same build. Served only by a console started
// with CONSOLE_BENCH_ROUTES=1 (./built-console.ts starts it so); anywhere else they answer 404.
import { getServices } from "../../lib/services";
import { errorResponse } from "../../lib/http/respond";
import type { BareHandler } from "./bare-sdk";

/** The empty route's path in the build (app/api/bench/empty). */
export const EMPTY_ROUTE = "/api/bench/empty";

/**
 * The route of the build that serves `make`'s handler when the console allows bench routes, and
 * 404 otherwise. Decided on its first request, as lib/api's route() opens its handler: later
 * requests go straight to the handler, so the baseline pays nothing the console's routes do not.
 */
export function benchRoute(make: () => BareHandler): BareHandler {
  let handler: BareHandler | undefined;
  return async (request) => {
    handler ??= (await getServices()).config.CONSOLE_BENCH_ROUTES ? make() : notServed;
    return handler(request);
  };
}

const notServed: BareHandler = async () => errorResponse(404, "not_found", "No such route");

/** An empty route: it reads the request's body, as any route taking a POST must, and answers {}. */
export function emptyHandler(): BareHandler {
  return async (request) => {
    await request.arrayBuffer();
    return Response.json({});
  };
}
