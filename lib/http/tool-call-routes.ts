import { randomUUID } from "node:crypto";
import { z } from "zod";
import { CallHistory } from "../execution/call-history";
import type { Services } from "../services";
import { authorize } from "./authorize";
import { readJsonBody, readQuery, routeParam, type RouteContext } from "./request-input";
import { errorResponse, json } from "./respond";

export type ToolCallRoutesDeps = Pick<Services, "registry" | "executor" | "database" | "access">;

/** The scope of the console's own tries: a repeat of a call id in it is answered from the record or the approval. */
export const CONSOLE_TRY_SCOPE = "console:try";

const CallId = z.string().trim().min(1).max(200).regex(/^[A-Za-z0-9_.:-]+$/, "letters, digits, '_', '.', ':' and '-' only");

const TryCall = z
  .object({
    args: z.record(z.string(), z.unknown()).default({}),
    /** Send the same id (with the same arguments) to ask again about a call that waits for approval. */
    callId: CallId.optional(),
  })
  .strict();

const CallsQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).optional() }).strict();

const PinBody = z.object({ pinned: z.boolean() }).strict();

/**
 * Try a tool from the console and list its calls (scope "tools"): POST and GET
 * /api/tools/[name]/calls, POST /api/tools/[name]/calls/[callId]/pin. A try goes through the
 * executor like any other call, with the caller as principal, so approvals apply.
 */
export function toolCallRoutes(deps: ToolCallRoutesDeps) {
  const { registry, executor, access } = deps;
  const history = new CallHistory(deps.database.db);

  async function run(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const name = await routeParam(context, "name");
    if (!registry.get(name)) return notFound(name);
    const body = await readJsonBody(request, TryCall);
    if (!body.ok) return body.response;
    const callId = body.data.callId ?? randomUUID();
    const result = await executor.call(name, body.data.args, {
      callId,
      ctx: { principal: caller.principal.id, scope: CONSOLE_TRY_SCOPE, surface: "console", runId: randomUUID(), signal: request.signal },
    });
    return json({ callId, result });
  }

  async function list(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const name = await routeParam(context, "name");
    if (!registry.get(name)) return notFound(name);
    const query = readQuery(request, CallsQuery);
    if (!query.ok) return query.response;
    // Operators see everyone's calls; a token sees its own.
    const principal = caller.principal.operator ? undefined : caller.principal.id;
    return json({ items: history.recent(name, { principal, limit: query.data.limit }) });
  }

  async function pin(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "tools");
    if (!caller.ok) return caller.response;
    const name = await routeParam(context, "name");
    if (!registry.get(name)) return notFound(name);
    const callId = await routeParam(context, "callId");
    const body = await readJsonBody(request, PinBody, 4096);
    if (!body.ok) return body.response;
    const changed = history.setPinned(name, callId, body.data.pinned, caller.principal.operator ? undefined : caller.principal.id);
    if (!changed) return errorResponse(404, "call_not_found", `No recorded call "${callId}" of ${name}`);
    return json({ callId, pinned: body.data.pinned });
  }

  return { run, list, pin };
}

function notFound(name: string): Response {
  return errorResponse(404, "tool_not_found", `No tool named "${name}" is registered`);
}
