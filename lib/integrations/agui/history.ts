import { interruptFor } from "../../agents/interrupts";
import type { ApprovalStore } from "../../approvals";
import type { AccessPolicy } from "../../auth/authenticate";
import { authorize } from "../../http/authorize";
import { mayActFor } from "../../auth/principal";
import { routeParam, type RouteContext } from "../../http/request-input";
import { errorResponse, json } from "../../http/respond";
import type { RunStore } from "../../runs/store";
import type { ToolRegistry } from "../../tools";

export interface HistoryDeps {
  runs: RunStore;
  approvals: ApprovalStore;
  registry: ToolRegistry;
  access: AccessPolicy;
}


/**
 * Thread and run history: GET /api/threads (recent threads), GET /api/threads/[id] (messages,
 * state and open interrupts, so a page survives a reload), GET /api/runs/[id]/events (the
 * recorded stream, as JSON or JSON Lines).
 */
export function historyHandlers(deps: HistoryDeps) {
  const { runs, approvals, registry, access } = deps;

  async function listThreads(request: Request): Promise<Response> {
    const caller = authorize(request, access, "agui");
    if (!caller.ok) return caller.response;
    const url = new URL(request.url);
    const limit = Number(url.searchParams.get("limit") ?? 30) || 30;
    const threads = runs.listThreads({ principal: caller.principal.operator ? undefined : caller.principal.id, limit });
    return json({ threads: threads.map(({ messages: _m, state: _s, ...summary }) => summary) });
  }

  async function getThread(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "agui");
    if (!caller.ok) return caller.response;
    const id = await routeParam(context, "id");
    const thread = runs.getThread(id);
    if (!thread || !mayActFor(caller.principal, thread.principal)) return errorResponse(404, "thread_not_found", `No thread with id "${id}"`);
    const interrupts = approvals.unansweredForThread(id).map((a) => interruptFor(a, registry.get(a.tool)));
    const lastRun = runs.listRuns({ threadId: id, limit: 1 }).items[0];
    return json({
      thread: { id: thread.id, agent: thread.agent, title: thread.title, principal: thread.principal, createdAt: thread.createdAt, updatedAt: thread.updatedAt },
      messages: thread.messages,
      state: thread.state ?? {},
      interrupts,
      lastRun: lastRun ? { id: lastRun.id, status: lastRun.status, outcome: lastRun.outcome } : null,
    });
  }

  async function runEvents(request: Request, context?: RouteContext): Promise<Response> {
    const caller = authorize(request, access, "agui");
    if (!caller.ok) return caller.response;
    const id = await routeParam(context, "id");
    const run = runs.getRun(id);
    if (!run || !mayActFor(caller.principal, run.principal)) return errorResponse(404, "run_not_found", `No run with id "${id}"`);
    const events = runs.events(id);
    const url = new URL(request.url);
    if (url.searchParams.get("format") === "jsonl")
      return new Response(events.map((e) => JSON.stringify(e)).join("\n") + (events.length ? "\n" : ""), {
        headers: { "content-type": "application/x-ndjson", "content-disposition": `attachment; filename="run-${id}.jsonl"`, "cache-control": "no-store" },
      });
    return json({ run, events });
  }

  return { listThreads, getThread, runEvents };
}
