import type { AgentCatalog } from "../../agents/catalog";
import type { AccessPolicy } from "../../auth/authenticate";
import { authorize } from "../../http/authorize";
import { routeParam, type RouteContext } from "../../http/request-input";
import type { Logger } from "../../log";
import { RunIdTaken } from "../../runs/store";
import { errorResponse, json } from "../../http/respond";
import { ThreadForbidden, type AguiBridge } from "./bridge";
import { parseRunInput, readBoundedBody } from "./input";
import { isPre10Client } from "./legacy";
import { SSE_HEADERS, sseBody } from "./sse";

export interface AguiEndpointDeps {
  bridge: AguiBridge;
  catalog: AgentCatalog;
  access: AccessPolicy;
  maxBodyBytes: number;
  logger: Logger;
  keepAliveMs?: number;
}

/**
 * The AG-UI endpoint as web-standard handlers: GET lists agents; POST streams a run of the named
 * agent (or the default one). Before the stream: 421 Host not served, 401 unauthenticated, 403 no
 * "agui" scope or another caller's thread, 404 unknown agent, 409 reused run id, 413 body too
 * large, 415 not JSON, 422 invalid input; after it opens, failures travel as RUN_ERROR.
 */
export function aguiEndpoint(deps: AguiEndpointDeps) {
  const { bridge, catalog, access, logger } = deps;

  async function listAgents(request: Request): Promise<Response> {
    const caller = authorize(request, access, "agui");
    if (!caller.ok) return caller.response;
    return json({ default: catalog.default.info.name, agents: catalog.list() });
  }

  async function run(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "agui");
    if (!caller.ok) return caller.response;

    const name = await routeParam(context, "agent");
    const agent = name ? catalog.get(name) : catalog.default;
    if (!agent) return errorResponse(404, "agent_not_found", `No agent named "${name}"; GET /api/agui lists them`);

    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json") return errorResponse(415, "unsupported_media_type", "Send the RunAgentInput as application/json");
    const body = await readBoundedBody(request, deps.maxBodyBytes);
    if (!body.ok) return errorResponse(body.status, body.status === 413 ? "payload_too_large" : "invalid_input", body.message);
    let raw: unknown;
    try {
      raw = JSON.parse(body.text);
    } catch {
      return errorResponse(422, "invalid_input", "The body is not valid JSON", [{ path: "", message: "is not valid JSON" }]);
    }
    const parsed = parseRunInput(raw);
    if (!parsed.ok) return errorResponse(422, "invalid_input", "The body is not a valid AG-UI RunAgentInput", parsed.issues);

    let opened;
    try {
      opened = bridge.open(agent, parsed.input, caller.principal);
    } catch (error) {
      if (error instanceof ThreadForbidden) return errorResponse(403, "forbidden", error.message);
      if (error instanceof RunIdTaken) return errorResponse(409, "run_id_taken", error.message);
      throw error;
    }

    const controller = new AbortController();
    const stop = () => controller.abort(new Error("client disconnected"));
    request.signal.addEventListener("abort", stop, { once: true });
    const legacy = isPre10Client(raw);
    logger.debug("agui run", { runId: parsed.input.runId, threadId: parsed.input.threadId, agent: agent.info.name, principal: caller.principal.id, legacy });
    const frames = opened.stream(controller.signal, { legacy });
    return new Response(sseBody(frames, { keepAliveMs: deps.keepAliveMs, onCancel: stop }), { status: 200, headers: SSE_HEADERS });
  }

  return { listAgents, run };
}
