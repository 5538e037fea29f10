import { DatabaseOpenError } from "../db";
import { PostgresOpenError } from "../db/postgres/open";
import { statusOf } from "../errors";
import { protector } from "../http/authorize";
import { errorResponse } from "../http/respond";
import { INTERNAL_ERROR_MESSAGE, type Handler } from "../http/handler";
import { getServices, type Services } from "../services";
import { a2aApi, type A2AApiOptions } from "./a2a";
import { aguiApi, type AguiApiOptions } from "./agui";
import { approvalsApi } from "./approvals";
import { healthApi } from "./health";
import { mcpApi, type McpApiOptions } from "./mcp";
import { sessionApi } from "./session";
import { settingsApi } from "./settings";
import { sourcesApi } from "./sources";
import { threadsApi } from "./threads";
import { toolCallsApi } from "./tool-calls";
import { tokensApi } from "./tokens";
import { toolsApi } from "./tools";

/** Every request handler of the console, by resource, over one set of services. */
export function createConsoleApi(services: Services, options: { agui?: AguiApiOptions; mcp?: McpApiOptions; a2a?: A2AApiOptions } = {}) {
  const protect = protector(services.access, services.logger);
  return {
    a2a: a2aApi(services, protect, options.a2a),
    agui: aguiApi(services, protect, options.agui),
    approvals: approvalsApi(services, protect),
    health: healthApi(services),
    mcp: mcpApi(services, protect, options.mcp),
    session: sessionApi(services),
    settings: settingsApi(services, protect),
    sources: sourcesApi(services, protect),
    threads: threadsApi(services, protect),
    tokens: tokensApi(services, protect),
    toolCalls: toolCallsApi(services, protect),
    tools: toolsApi(services, protect),
  };
}

export type ConsoleApi = ReturnType<typeof createConsoleApi>;

const apis = new WeakMap<Services, ConsoleApi>();

/** The handlers over `services`, built once per services object (route modules share them). */
export function consoleApi(services: Services): ConsoleApi {
  let api = apis.get(services);
  if (!api) {
    api = createConsoleApi(services);
    apis.set(services, api);
  }
  return api;
}

/**
 * A Next.js route handler: `export const GET = route((api) => api.tools.list)`. The services
 * are opened on the first request, so importing a route module (as `next build` does) opens no
 * database; a database that cannot be opened is a 503 database_unavailable, anything else a 500,
 * with the reason (which names paths) in the server log only.
 */
export function route(pick: (api: ConsoleApi) => Handler): Handler {
  let handler: Handler | undefined;
  return async (request, context) => {
    try {
      handler ??= pick(consoleApi(await getServices()));
    } catch (error) {
      console.error(error);
      if (error instanceof DatabaseOpenError || error instanceof PostgresOpenError)
        return errorResponse(statusOf(error.kind), error.kind, "The console cannot open its database; the server log says why");
      return errorResponse(500, "internal_error", INTERNAL_ERROR_MESSAGE);
    }
    return handler(request, context);
  };
}
