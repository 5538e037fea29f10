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
import { SSE_HEADERS, sseBody } from "../http/sse";
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
const StreamQuery = z.object({ after: z.coerce.number().int().min(-1).max(Number.MAX_SAFE_INTEGER).optional() }).strict();

/** How often a followed run's recorded events are read again while it runs (its events are written about as often). */
export const FOLLOW_POLL_MS = 100;

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
    return json({ threads });
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

  /**
   * GET /api/runs/[id]/stream: a run as an AG-UI event stream (SSE), from any console instance:
   * the events recorded so far, then the others as they are recorded, until the run ends. Each
   * frame's `id` is the event's position, so a client that reconnects (here or to another instance)
   * sends `Last-Event-ID` or `?after=` and gets only what it missed. A run that ended without a
   * terminal event (its instance stopped) gets a RUN_ERROR saying so, so a client always sees an end.
   */
  const runStream = protect("agui", async (request, caller, context) => {
    const id = await routeParam(context, "id");
    const { after } = readQuery(request, StreamQuery);
    const lastEventId = request.headers.get("last-event-id");
    const from = after ?? (lastEventId !== null && /^\d{1,15}$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : -1);
    const run = await runs.getRun(id);
    if (!run || !mayActFor(caller, run.principal)) throw new DomainError("run_not_found", `No run with id "${id}"`);
    const stop = new AbortController();
    request.signal.addEventListener("abort", () => stop.abort(), { once: true });
    return new Response(sseBody(followRun(runs, id, from, stop.signal), { onCancel: () => stop.abort() }), { headers: SSE_HEADERS });
  });

  return { listThreads, getThread, runEvents, runStream };
}

const TERMINAL_EVENTS = new Set(["RUN_FINISHED", "RUN_ERROR"]);

/**
 * The SSE frames of run `id` after position `after`: reads the run's status, then its events after
 * the last one sent, every FOLLOW_POLL_MS, and ends after the read that follows the run's end (the
 * end and the last events are written together, so that read has them all).
 */
async function* followRun(runs: ThreadDeps["runs"], id: string, after: number, signal: AbortSignal): AsyncGenerator<string> {
  let seq = after;
  let lastType: string | undefined;
  while (!signal.aborted) {
    const run = await runs.getRun(id);
    const events = await runs.events(id, seq);
    if (events.length) {
      yield events.map((event, i) => `id: ${seq + 1 + i}\ndata: ${JSON.stringify(event)}\n\n`).join("");
      seq += events.length;
      lastType = events.at(-1)!.type;
    }
    if (!run || run.status !== "running") {
      // A client that had every event already: its last one tells whether the run's end was recorded.
      if (lastType === undefined && seq >= 0) lastType = (await runs.events(id, seq - 1))[0]?.type;
      if (!TERMINAL_EVENTS.has(lastType ?? ""))
        yield `id: ${seq + 1}\ndata: ${JSON.stringify({ type: "RUN_ERROR", message: run?.error ?? "The run ended without its end being recorded" })}\n\n`;
      return;
    }
    await pause(FOLLOW_POLL_MS, signal);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
