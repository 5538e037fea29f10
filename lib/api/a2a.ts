import { A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER, formatSSEEvent, formatSSEErrorEvent } from "@a2a-js/sdk";
import { LEGACY_HTTP_EXTENSION_HEADER } from "@a2a-js/sdk/compat/v0_3";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { DefaultRequestHandler, JsonRpcTransportHandler, ServerCallContext, validateVersion } from "@a2a-js/sdk/server";
import { assertSameOrigin, assertServedHost, crossOrigin, isLocal, isLoopback } from "../auth/authenticate";
import type { Protect } from "../http/authorize";
import { DomainError, isDomainError, rpcErrorObject, statusOf, type ErrorKind } from "../errors";
import { answerErrors, type Handler } from "../http/handler";
import { DEFAULT_MAX_BODY_BYTES, readJson } from "../http/request-input";
import { errorResponse } from "../http/respond";
import { SSE_HEADERS, sseBody } from "../http/sse";
import { isJsonObject } from "../json/canonical";
import { A2A_ENDPOINT_PATH, AgentCardCache, agentCardJson, buildAgentCard } from "../integrations/a2a/server-card";
import { BASE_URL_STATE, ConsoleAgentExecutor } from "../integrations/a2a/server-executor";
import { A2ATasks, type A2ATaskOptions } from "../integrations/a2a/server-tasks";
import type { Services } from "../services";
import { A2A_CORS, endpointCors } from "./cors";

export interface A2AApiOptions {
  /** Largest request body; 1 MiB unless set. */
  maxBodyBytes?: number;
  /** Largest data part of a message (its JSON); 256 KiB unless set. */
  maxDataBytes?: number;
  tasks?: A2ATaskOptions;
  /** A data part {approval_id, approved} on a waiting task decides its approval (A2A_CLIENT_APPROVAL). */
  clientApproval?: boolean;
}

const DEFAULT_MAX_DATA_BYTES = 256 * 1024;
const SEND_METHODS = new Set(["SendMessage", "SendStreamingMessage", "message/send", "message/stream"]);

/**
 * The A2A surface: the agent card (public, GET) and the JSON-RPC endpoint (scope "a2a", POST)
 * through the SDK's framework-free handler, v1.0 for requests with `A2A-Version: 1.0` and the SDK's
 * v0.3 layer for the others. Before the JSON-RPC exchange the answer is an HTTP status with the
 * console's error body: 421 a Host not served, 401 no or bad token, 403 no "a2a" scope or a foreign
 * Origin, 413, 415, 400 not JSON. After it, errors are JSON-RPC errors with their kind's code.
 * Pages on origins the console lists may call it with a bearer token (CORS; OPTIONS answers their preflight).
 */
export function a2aApi(
  services: Pick<Services, "registry" | "executor" | "approvals" | "storage" | "logger" | "access" | "config" | "version" | "agents">,
  protect: Protect,
  options: A2AApiOptions = {},
) {
  const { access, logger, config } = services;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxDataBytes = options.maxDataBytes ?? DEFAULT_MAX_DATA_BYTES;
  const tasks = new A2ATasks(services.storage.a2aTasks, services.approvals, logger, options.tasks);
  const executor = new ConsoleAgentExecutor({
    executor: services.executor,
    approvals: services.approvals,
    agents: services.agents,
    tasks,
    logger,
    clientApproval: options.clientApproval ?? config.A2A_CLIENT_APPROVAL,
  });
  const cards = new AgentCardCache(services.registry);
  // The request handler reads only the card's interfaces and capabilities, which never change;
  // the skills are read from the registry when the card is served.
  const protocolCard = buildAgentCard([], {
    url: `http://127.0.0.1${A2A_ENDPOINT_PATH}`,
    version: services.version,
    tokensRequired: !isLoopback(config.HOST),
  });
  // A parked task keeps no bus in memory: it is resumed (or cancelled) from SQLite, by any process.
  const handler = new DefaultRequestHandler(protocolCard, tasks, executor, undefined, undefined, undefined, undefined, undefined, {
    keepBusAliveStates: [],
  });
  const v1 = new JsonRpcTransportHandler(handler);
  const legacy = new LegacyJsonRpcTransportHandler(handler);

  /** Where clients reach the console: PUBLIC_URL, else the Host the request was sent to. */
  const baseUrl = (request: Request) => (config.PUBLIC_URL ?? `http://${request.headers.get("host")}`).replace(/\/+$/, "");

  const card: Handler = async (request) => {
    // Anonymous callers are served only by a loopback console reached by a local name: reached by a
    // name in ALLOWED_HOSTS (a proxy in front, say), even a loopback console wants a token.
    const { local } = assertServedHost(request, access.allowedHosts);
    const current = cards.get({
      url: `${baseUrl(request)}${A2A_ENDPOINT_PATH}`,
      version: services.version,
      tokensRequired: !isLocal(access, local),
    });
    return Response.json(agentCardJson(current, request.headers.get(A2A_VERSION_HEADER) ?? undefined), {
      headers: { vary: A2A_VERSION_HEADER, "cache-control": "no-cache" },
    });
  };

  // Until the body is read, a refusal is an HTTP status with the console's error body (protect);
  // after it, every answer is JSON-RPC.
  const post = protect("a2a", async (request, caller) => {
    const principalId = caller.id;
    // A page elsewhere got here only from an origin listed for its bearer token (authenticate
    // checked it); any other browser request must come from the console's own pages.
    if (crossOrigin(request) === undefined) assertSameOrigin(request, { required: false });
    const body = await readJson(request, maxBodyBytes);
    if (body === undefined) throw new DomainError("invalid_json", "The body is empty; send a JSON-RPC request");
    const requested = request.headers.get(A2A_VERSION_HEADER) ?? undefined;
    const useLegacy = (requested ?? "0.3") === "0.3";
    const id = isJsonObject(body) && (typeof body.id === "string" || typeof body.id === "number") ? body.id : null;
    const failure = (error: unknown) => ({
      jsonrpc: "2.0",
      id,
      error: useLegacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error) : JsonRpcTransportHandler.mapToJSONRPCError(error),
    });
    try {
      const refused = await admission(body, principalId);
      if (refused) return Response.json({ jsonrpc: "2.0", id, error: rpcErrorObject(refused.kind, refused.message) });
      const extensions = useLegacy
        ? (request.headers.get(LEGACY_HTTP_EXTENSION_HEADER) ?? request.headers.get(HTTP_EXTENSION_HEADER))
        : request.headers.get(HTTP_EXTENSION_HEADER);
      const ctx = new ServerCallContext({
        user: { isAuthenticated: true, userName: principalId },
        requestedVersion: requested,
        requestedExtensions: Extensions.parseServiceParameter(extensions ?? undefined),
        state: new Map([[BASE_URL_STATE, baseUrl(request)]]),
      });
      validateVersion(ctx.requestedVersion, protocolCard, "JSONRPC");
      const out = await (useLegacy ? legacy : v1).handle(body as Record<string, unknown>, ctx);
      if (!isStream(out)) return Response.json(out);
      return await streamed(out, failure);
    } catch (error) {
      if (!isDomainError(error)) logger.error("A2A request failed", { error });
      return Response.json(failure(error));
    }
  });

  /**
   * Checks the SDK cannot make: each data part of a message within maxDataBytes, and room for a
   * new task under the caller's cap (a message on an existing task creates none).
   */
  async function admission(body: unknown, principal: string): Promise<{ kind: ErrorKind; message: string } | undefined> {
    if (!isJsonObject(body) || typeof body.method !== "string" || !SEND_METHODS.has(body.method)) return undefined;
    const message = isJsonObject(body.params) ? body.params.message : undefined;
    if (!isJsonObject(message)) return undefined;
    const parts = Array.isArray(message.parts) ? message.parts : [];
    for (const part of parts)
      if (isJsonObject(part) && "data" in part && JSON.stringify(part.data ?? null).length > maxDataBytes)
        return { kind: "payload_too_large", message: `A data part is larger than ${maxDataBytes} bytes` };
    if (message.taskId === undefined || message.taskId === "") {
      if (!(await tasks.admit(principal)))
        return { kind: "forbidden", message: `This caller holds ${tasks.cap} open tasks already; finish or cancel some first` };
    }
    return undefined;
  }

  const notAllowed: Handler = async () =>
    errorResponse(statusOf("method_not_allowed"), "method_not_allowed", "The A2A endpoint takes JSON-RPC over POST", undefined, {
      allow: "POST",
    });

  const cors = endpointCors(services);
  return {
    card: answerErrors(card, logger),
    post: cors.wrap(A2A_CORS, post),
    get: cors.wrap(A2A_CORS, notAllowed),
    preflight: cors.preflight(A2A_CORS),
    tasks,
  };
}

function isStream(value: unknown): value is AsyncGenerator<unknown> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | undefined)?.[Symbol.asyncIterator] === "function";
}

/**
 * A streaming answer as SSE (sseBody: keepalive comments while a task waits, and the generator
 * waits for a slow reader): an error before the first event is a plain JSON-RPC error (as the SDK's
 * express adapter answers), a later one the stream's last event. A client that goes away stops the
 * generator.
 */
async function streamed(events: AsyncGenerator<unknown>, failure: (error: unknown) => unknown): Promise<Response> {
  const iterator = events[Symbol.asyncIterator]();
  let first: IteratorResult<unknown>;
  try {
    first = await iterator.next();
  } catch (error) {
    return Response.json(failure(error));
  }
  async function* frames(): AsyncGenerator<string> {
    if (first.done) return;
    yield formatSSEEvent(first.value);
    try {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield formatSSEEvent(next.value);
    } catch (error) {
      yield formatSSEErrorEvent(failure(error));
    }
  }
  return new Response(sseBody(frames(), { onCancel: () => void iterator.return?.(undefined) }), { headers: SSE_HEADERS });
}
