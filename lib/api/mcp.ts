import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { assertSameOrigin, crossOrigin } from "../auth/authenticate";
import type { Protect } from "../http/authorize";
import { DomainError, statusOf, type ErrorKind } from "../errors";
import type { Handler } from "../http/handler";
import { DEFAULT_MAX_BODY_BYTES, readJson } from "../http/request-input";
import { errorResponse } from "../http/respond";
import { createMcpServer, type McpServerDeps } from "../integrations/mcp/server";
import { declaredFeatures, featuresOf, readsTasks, sessionIdFor } from "../integrations/mcp/server-session";
import { McpTasks, type McpTaskOptions } from "../integrations/mcp/server-tasks";
import { McpToolCatalog } from "../integrations/mcp/server-tools";
import type { Services } from "../services";
import { endpointCors, MCP_CORS } from "./cors";

export interface McpApiOptions {
  /** Largest request body (a JSON-RPC message or batch); 1 MiB unless set. */
  maxBodyBytes?: number;
  tasks?: McpTaskOptions;
}

const ALLOW = { allow: "POST" };

/**
 * The MCP endpoint (scope "mcp"): Streamable HTTP, stateless, answering in SSE so progress and log
 * notifications reach the client. Before the JSON-RPC exchange the answer is an HTTP status with
 * the console's error body: 421 a Host this console does not serve, 403 an Origin that is not the
 * console's, 401 no or bad token, 403 no "mcp" scope, 413, 415, 406 (Accept must list JSON and
 * SSE), 400 not JSON-RPC. GET and DELETE are 405: there is no standalone stream and no session.
 * Pages on origins the console lists may call it with a bearer token (CORS; OPTIONS answers their preflight).
 */
export function mcpApi(
  services: Pick<Services, "registry" | "executor" | "approvals" | "storage" | "logger" | "config" | "version" | "access">,
  protect: Protect,
  options: McpApiOptions = {},
) {
  const { logger, config } = services;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const deps: McpServerDeps = {
    catalog: new McpToolCatalog(services.registry),
    executor: services.executor,
    approvals: services.approvals,
    tasks: new McpTasks(services.storage.mcpTasks, services.executor, services.approvals, logger, options.tasks),
    logger,
    version: services.version,
  };

  const post = protect("mcp", async (request, principal) => {
    // A page elsewhere got here only from an origin listed for its bearer token (authenticate
    // checked it); any other browser request must come from the console's own pages.
    if (crossOrigin(request) === undefined) assertSameOrigin(request, { required: false });
    const message = await readJson(request, maxBodyBytes);
    if (message === undefined) throw new DomainError("invalid_json", "The body is empty; send a JSON-RPC message");
    const declared = declaredFeatures(message);
    const features = declared ?? featuresOf(request.headers.get("mcp-session-id"));
    const baseUrl = config.PUBLIC_URL ?? `http://${request.headers.get("host")}`;
    const server = createMcpServer(deps, {
      principal: principal.id,
      urlElicitation: features.urlElicitation,
      baseUrl,
      readsTasks: readsTasks(message),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const answer = await transport.handleRequest(request, { parsedBody: message });
    return finish(answer, declared && sessionIdFor(declared));
  });

  const notAllowed: Handler = async () =>
    errorResponse(
      statusOf("method_not_allowed"),
      "method_not_allowed",
      "The MCP endpoint takes POST only (no standalone stream, no session to end)",
      undefined,
      ALLOW,
    );

  const cors = endpointCors(services);
  return {
    post: cors.wrap(MCP_CORS, post),
    get: cors.wrap(MCP_CORS, notAllowed),
    delete: cors.wrap(MCP_CORS, notAllowed),
    preflight: cors.preflight(MCP_CORS),
  };
}

/**
 * The transport's answer as the console sends it: an event stream with the console's SSE headers
 * (no-transform keeps Next from compressing it), the session id carrying the client's features after
 * initialize, and the transport's own refusals (Accept, malformed JSON-RPC) in the console's error body.
 */
async function finish(answer: Response, sessionId: string | undefined): Promise<Response> {
  if (answer.status >= 400) {
    const body = (await answer.json().catch(() => undefined)) as { error?: { message?: unknown } } | undefined;
    const message = typeof body?.error?.message === "string" ? body.error.message : "The request is not one the MCP endpoint takes";
    const kind: ErrorKind = answer.status === 406 ? "not_acceptable" : answer.status === 413 ? "payload_too_large" : "invalid_request";
    return errorResponse(statusOf(kind), kind, message);
  }
  // The transport builds its Response itself, so its headers can be set in place: no second Response per request.
  const { headers } = answer;
  if (headers.get("content-type")?.startsWith("text/event-stream")) {
    headers.set("cache-control", "no-cache, no-transform");
    headers.set("x-accel-buffering", "no");
  }
  if (sessionId) headers.set("mcp-session-id", sessionId);
  return answer;
}
