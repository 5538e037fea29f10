import type { Interrupt, Message } from "@ag-ui/core";
import { z } from "zod";
import { interruptFor } from "../agents/interrupts";
import { openRemoteInterrupts } from "../integrations/agui-remote";
import { mayActFor, type Principal } from "../auth/principal";
import { DomainError } from "../errors";
import type { Protect } from "../http/authorize";
import { attachmentDisposition } from "../http/content-disposition";
import { readQuery, routeParam } from "../http/request-input";
import { json } from "../http/respond";
import { queryLimit } from "./query-limit";
import type { Run, Thread } from "../db/runs";
import type { Services } from "../services";

type ThreadDeps = Pick<Services, "runs" | "approvals" | "registry">;

/** A thread as the chat reloads it: its messages, shared state and the interrupts still open. */
export interface ThreadView {
  thread: Pick<Thread, "id" | "agent" | "title" | "principal" | "createdAt" | "updatedAt">;
  messages: Message[];
  state: unknown;
  interrupts: Interrupt[];
  lastRun: Pick<Run, "id" | "status" | "outcome"> | null;
}

/** The thread with this id as `caller` may see it (theirs, or any for an operator); undefined otherwise. */
export async function loadThreadView(deps: ThreadDeps, id: string, caller: Principal): Promise<ThreadView | undefined> {
  const thread = await deps.runs.getThread(id);
  if (!thread || !mayActFor(caller, thread.principal)) return undefined;
  const lastRun = (await deps.runs.listRuns({ threadId: id, limit: 1 })).items[0];
  const [unanswered, remote] = await Promise.all([
    deps.approvals.unansweredForThread(id),
    // A remote agent's own interrupts, as it sent them, with the inbox's decisions (lib/integrations/agui-remote).
    openRemoteInterrupts(deps.approvals, id, lastRun?.status === "interrupted" ? lastRun.outcome : undefined),
  ]);
  return {
    thread: {
      id: thread.id,
      agent: thread.agent,
      title: thread.title,
      principal: thread.principal,
      createdAt: thread.createdAt,
      updatedAt: thread.updatedAt,
    },
    messages: thread.messages as Message[],
    state: thread.state ?? {},
    interrupts: [...unanswered.map((a) => interruptFor(a, deps.registry.get(a.tool))), ...remote],
    lastRun: lastRun ? { id: lastRun.id, status: lastRun.status, outcome: lastRun.outcome } : null,
  };
}

const ThreadsQuery = z.object({ limit: queryLimit(200).default(30) }).strict();
const EventsQuery = z.object({ format: z.enum(["json", "jsonl"]).default("json") }).strict();

/**
 * Thread and run history (scope "agui"; a token sees its own, an operator every caller's):
 * GET /api/threads (recent threads), GET /api/threads/[id] (messages, state and open interrupts,
 * so a page survives a reload), GET /api/runs/[id]/events (the recorded stream, as JSON or JSON Lines).
 */
export function threadsApi(services: ThreadDeps, protect: Protect) {
  const { runs } = services;

  const listThreads = protect("agui", async (request, caller) => {
    const { limit } = readQuery(request, ThreadsQuery);
    const threads = await runs.listThreads({ principal: caller.operator ? undefined : caller.id, limit });
    return json({ threads: threads.map(({ messages: _m, state: _s, ...summary }) => summary) });
  });

  const getThread = protect("agui", async (_request, caller, context) => {
    const id = await routeParam(context, "id");
    const view = await loadThreadView(services, id, caller);
    if (!view) throw new DomainError("thread_not_found", `No thread with id "${id}"`);
    return json(view);
  });

  const runEvents = protect("agui", async (request, caller, context) => {
    const id = await routeParam(context, "id");
    const { format } = readQuery(request, EventsQuery);
    const run = await runs.getRun(id);
    if (!run || !mayActFor(caller, run.principal)) throw new DomainError("run_not_found", `No run with id "${id}"`);
    const events = await runs.events(id);
    if (format === "jsonl")
      return new Response(events.map((e) => JSON.stringify(e)).join("\n") + (events.length ? "\n" : ""), {
        headers: {
          "content-type": "application/x-ndjson",
          // Run ids are chosen by clients: the builder keeps quotes, CR/LF and non-Latin-1 out of the header.
          "content-disposition": attachmentDisposition(`run-${id}.jsonl`),
          "cache-control": "no-store",
        },
      });
    return json({ run, events });
  });

  return { listThreads, getThread, runEvents };
}
