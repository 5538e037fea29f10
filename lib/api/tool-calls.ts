import { randomUUID } from "node:crypto";
import { newCallId } from "../execution/call-id";
import { z } from "zod";
import { DomainError } from "../errors";
import type { Protect } from "../http/authorize";
import { readJsonBody, readQuery, routeParam, type RouteContext } from "../http/request-input";
import { json } from "../http/respond";
import type { Services } from "../services";
import { TryCall, type TryCallAnswer } from "./contracts";
import { queryLimit } from "./query-limit";
import { toolNotFound } from "./tools";

/** The scope of the console's own tries: a repeat of a call id in it is answered from the record or the approval. */
export const CONSOLE_TRY_SCOPE = "console:try";

const CallsQuery = z.object({ limit: queryLimit(200).optional() }).strict();

const PinBody = z.object({ pinned: z.boolean() }).strict();

/**
 * Try a tool from the console and list its calls (scope "tools"): POST and GET
 * /api/tools/[name]/calls, POST /api/tools/[name]/calls/[callId]/pin. A try goes through the
 * executor like any other call, with the caller as principal, so approvals apply.
 */
export function toolCallsApi(services: Pick<Services, "registry" | "executor" | "callHistory">, protect: Protect) {
  const { registry, executor, callHistory } = services;

  /** The registered tool's name the route names. Throws tool_not_found. */
  const toolName = async (context?: RouteContext): Promise<string> => {
    const name = await routeParam(context, "name");
    return registry.get(name) ? name : toolNotFound(name);
  };

  const run = protect("tools", async (request, caller, context) => {
    const name = await toolName(context);
    const body = await readJsonBody(request, TryCall);
    const callId = body.callId ?? newCallId();
    const result = await executor.call(name, body.args, {
      callId,
      ctx: { principal: caller.id, scope: CONSOLE_TRY_SCOPE, surface: "console", runId: randomUUID(), signal: request.signal },
    });
    return json({ callId, result } satisfies TryCallAnswer);
  });

  const list = protect("tools", async (request, caller, context) => {
    const name = await toolName(context);
    const { limit } = readQuery(request, CallsQuery);
    // Operators see everyone's calls; a token sees its own.
    return json({ items: await callHistory.recent(name, { principal: caller.operator ? undefined : caller.id, limit }) });
  });

  const pin = protect("tools", async (request, caller, context) => {
    const name = await toolName(context);
    const callId = await routeParam(context, "callId");
    const { pinned } = await readJsonBody(request, PinBody, 4096);
    const changed = await callHistory.setPinned(name, callId, pinned, caller.operator ? undefined : caller.id);
    if (!changed) throw new DomainError("call_not_found", `No recorded call "${callId}" of ${name}`);
    return json({ callId, pinned });
  });

  return { run, list, pin };
}
