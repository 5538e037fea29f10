import { DomainError } from "../errors";
import type { Protect } from "../http/authorize";
import { readJson, routeParam } from "../http/request-input";
import { json } from "../http/respond";
import { SSE_HEADERS, sseBody } from "../http/sse";
import { isPre10Client, parseRunInput } from "../integrations/agui";
import type { Services } from "../services";
import { AGUI_CORS, endpointCors } from "./cors";

export interface AguiApiOptions {
  /** A `: keepalive` comment after this long without an event (tests shorten it). */
  keepAliveMs?: number;
}

/**
 * The AG-UI endpoint (scope "agui"): GET lists agents; POST streams a run of the named agent (or
 * the default one). Before the stream the answer is an HTTP status (see the README's table:
 * 404 unknown agent, 403 another caller's thread, 409 reused run id, 413, 415, 400 bad JSON,
 * 422 not a RunAgentInput); once it is open, failures travel as RUN_ERROR. Pages on origins
 * the console lists may call it with a bearer token (CORS; OPTIONS answers their preflight).
 */
export function aguiApi(
  services: Pick<Services, "bridge" | "agents" | "config" | "logger" | "access">,
  protect: Protect,
  options: AguiApiOptions = {},
) {
  const { bridge, agents, logger } = services;
  const cors = endpointCors(services);

  // An embed token sees its one agent, as its default: the rest of the catalogue is not its business.
  const listAgents = protect("agui", async (_request, caller) => {
    if (caller.agent === undefined) return json({ default: agents.default.info.name, agents: agents.list() });
    return json({ default: caller.agent, agents: agents.list().filter((agent) => agent.name === caller.agent) });
  });

  const run = protect("agui", async (request, caller, context) => {
    const name = await routeParam(context, "agent");
    const agent = name ? agents.get(name) : agents.default;
    if (!agent) throw new DomainError("agent_not_found", `No agent named "${name}"; GET /api/agui lists them`);
    // An embed token is good for its one agent only.
    if (caller.agent !== undefined && caller.agent !== agent.info.name)
      throw new DomainError("forbidden", `This token is for the agent "${caller.agent}" only`);
    const raw = await readJson(request, services.config.AGUI_MAX_BODY_BYTES);
    const input = parseRunInput(raw);
    const opened = await bridge.open(agent, input, caller);

    const controller = new AbortController();
    const stop = () => controller.abort(new Error("client disconnected"));
    request.signal.addEventListener("abort", stop, { once: true });
    const legacy = isPre10Client(raw);
    logger.debug("agui run", { runId: input.runId, threadId: input.threadId, agent: agent.info.name, principal: caller.id, legacy });
    const frames = opened.stream(controller.signal, { legacy, stallMs: services.config.AGUI_STALL_MS });
    return new Response(sseBody(frames, { keepAliveMs: options.keepAliveMs, onCancel: stop }), { status: 200, headers: SSE_HEADERS });
  });

  return { listAgents: cors.wrap(AGUI_CORS, listAgents), run: cors.wrap(AGUI_CORS, run), preflight: cors.preflight(AGUI_CORS) };
}
