"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { AgentState, HttpAGUIClient, type ThreadData } from "@/lib/client";
import { useAgentState } from "@/lib/client/use-agent-state";
import { JsonView } from "../common/json-view";
import { MarkdownWarmUp } from "../common/markdown";
import { useApprovalEvents } from "../common/use-approval-events";
import { InterruptCard, type InterruptActions, type RemoteDecision } from "./interrupt-card";
import { MessageList } from "./message-list";

export interface ChatAgent {
  name: string;
  description: string;
  model: string;
  /** The thread's agent is no longer served here (removed): the thread is shown read-only. */
  gone?: boolean;
  /**
   * The agent says it reads and writes the shared state. When it does not, the state panel shows
   * only once the thread has a state, leaving the conversation the room.
   */
  sharedState?: boolean;
}

/**
 * A conversation with one agent over AG-UI: messages, the tool-call timeline, interrupt cards,
 * the shared state, Stop, and an error banner with Retry. History, state and open interrupts
 * come from the server on load, so the page survives a reload.
 */
export function ChatView({
  agent,
  threadId,
  initial,
  toolSchemas,
}: {
  agent: ChatAgent;
  threadId: string;
  initial: ThreadData | null;
  toolSchemas: Record<string, Record<string, unknown>>;
}) {
  const router = useRouter();
  const [store] = useState(() => {
    const state = new AgentState({ client: new HttpAGUIClient(`/api/agui/${encodeURIComponent(agent.name)}`), threadId });
    if (initial) state.loadThread({ ...initial, threadId });
    return state;
  });
  const snapshot = useAgentState(store);
  const [draft, setDraft] = useState("");
  const [actionError, setActionError] = useState<string>();
  const scrollRef = useRef<HTMLDivElement>(null);
  const running = snapshot.status === "running";
  const unanswered = snapshot.interrupts.filter((i) => !i.answer).length;

  useEffect(() => () => void store.close(), [store]);
  // For `npm run bench`: when the loaded thread is on screen.
  useEffect(() => void performance.mark("agui-console:thread-rendered"), []);

  // Keep the newest content in view while the user has not scrolled up. Where the user is comes from
  // their own scrolling, not from the distance to the end after a change: an answer may grow by more
  // than a screen between two frames.
  const following = useRef(true);
  useEffect(() => {
    const list = scrollRef.current;
    if (list && following.current) list.scrollTop = list.scrollHeight;
  }, [snapshot.version]);

  // When a run ends, refresh server-rendered parts (the thread list, the pending count).
  const wasRunning = useRef(false);
  useEffect(() => {
    if (wasRunning.current && !running) router.refresh();
    wasRunning.current = running;
  }, [running, router]);

  const act = useCallback(async (action: () => Promise<void>) => {
    setActionError(undefined);
    try {
      await action();
    } catch (error) {
      setActionError(error instanceof Error ? error.message : String(error));
    }
  }, []);

  // A decision taken elsewhere (the approvals inbox, another operator) reaches this tab live: the
  // card says who decided, and the run resumes by itself once every open interrupt is answered.
  const [remote, setRemote] = useState<Record<string, RemoteDecision>>({});
  const applyRemote = useCallback(
    (id: string, decision: RemoteDecision) => {
      const open = store.getSnapshot().interrupts.find((i) => i.interrupt.id === id && !i.answer);
      if (!open || !["approved", "denied", "cancelled"].includes(decision.status)) return;
      setRemote((old) => ({ ...old, [id]: decision }));
      if (decision.status === "approved") void act(() => store.resolve(id, { approved: true }));
      else if (decision.status === "denied")
        void act(() => store.resolve(id, decision.reason ? { approved: false, reason: decision.reason } : { approved: false }));
      else void act(() => store.cancel(id));
    },
    [act, store],
  );
  useApprovalEvents((message) => {
    if (message.type !== "decided" && message.type !== "cancelled") return;
    const { approval } = message;
    // A remote agent's interrupt keeps its own id; the console's approval for it names it as callId.
    applyRemote(approval.surface === "agui-remote" ? approval.callId : approval.id, {
      status: approval.status,
      decidedBy: approval.decidedBy ?? "someone",
      reason: approval.reason ?? undefined,
    });
  }, threadId);
  // Decisions taken while this page was closed are in the interrupts' metadata: apply them on load.
  useEffect(() => {
    for (const { interrupt } of store.getSnapshot().interrupts) {
      const meta = (interrupt.metadata ?? {}) as { status?: string; decidedBy?: string };
      if (meta.status && meta.status !== "pending" && meta.decidedBy)
        applyRemote(interrupt.id, { status: meta.status, decidedBy: meta.decidedBy });
    }
  }, [store, applyRemote]);

  const actions: InterruptActions = useMemo(
    () => ({
      approve: (id, editedArgs, rememberForThread) =>
        void act(() =>
          store.resolve(id, { approved: true, ...(editedArgs && { editedArgs }), ...(rememberForThread && { rememberForThread }) }),
        ),
      deny: (id, reason) => void act(() => store.resolve(id, reason ? { approved: false, reason } : { approved: false })),
      cancel: (id) => void act(() => store.cancel(id)),
    }),
    [act, store],
  );

  return (
    <div className="flex h-[calc(100vh-4rem)] min-h-[32rem] gap-4">
      <section className="flex min-w-0 flex-1 flex-col rounded-lg border border-slate-200 bg-slate-100/60" aria-label="Conversation">
        <header className="flex items-center justify-between gap-2 border-b border-slate-200 bg-white px-4 py-2">
          <div>
            <h1 className="text-base font-semibold">
              Chat with <span className="font-mono">{agent.name}</span>
            </h1>
            <p className="text-xs text-slate-500">
              {agent.model} · <span aria-label="Run status">{label(snapshot.status)}</span>
              {snapshot.currentStep ? ` · step: ${snapshot.currentStep}` : ""}
            </p>
          </div>
          {running ? (
            <button
              type="button"
              className="rounded-md bg-slate-800 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-900"
              onClick={() => store.stop()}
            >
              Stop
            </button>
          ) : null}
        </header>
        <div
          ref={scrollRef}
          className="min-h-0 flex-1 overflow-y-auto px-4 py-4"
          onScroll={(e) => {
            const list = e.currentTarget;
            following.current = list.scrollHeight - list.scrollTop - list.clientHeight < 160;
          }}
        >
          {snapshot.messages.length === 0 ? (
            <p className="text-sm text-slate-500">{agent.description} Try “weather in Paris” or “refund order 1234 for 20 EUR”.</p>
          ) : null}
          <MessageList snapshot={snapshot} scrollRef={scrollRef} />
          <MarkdownWarmUp />
          {snapshot.interrupts.length ? (
            <div className="mt-4 space-y-3" aria-label="Open approvals">
              {snapshot.interrupts.length > 1 ? (
                <p className="text-xs text-slate-600">
                  {snapshot.interrupts.length} calls wait for a decision; the agent goes on once all are answered.
                </p>
              ) : null}
              {snapshot.interrupts.map((open) => (
                <InterruptCard
                  key={open.interrupt.id}
                  open={open}
                  actions={actions}
                  busy={running}
                  remote={remote[open.interrupt.id]}
                  schema={toolSchemas[String((open.interrupt.metadata as { toolName?: string } | undefined)?.toolName)]}
                />
              ))}
            </div>
          ) : null}
        </div>
        {snapshot.error || actionError ? (
          <div
            role="alert"
            className="flex items-center justify-between gap-2 border-t border-red-200 bg-red-50 px-4 py-2 text-sm text-red-900"
          >
            <span>
              {actionError ??
                `${snapshot.error!.source === "run" ? "The run failed" : "The connection failed"}: ${snapshot.error!.message}`}
            </span>
            {snapshot.error && !running ? (
              <button
                type="button"
                className="rounded-md border border-red-300 bg-white px-3 py-1 font-medium hover:bg-red-100"
                onClick={() => void act(() => store.retry())}
              >
                Retry
              </button>
            ) : null}
          </div>
        ) : null}
        <form
          className="flex items-end gap-2 border-t border-slate-200 bg-white p-3"
          onSubmit={(e) => {
            e.preventDefault();
            const text = draft.trim();
            if (!text || running || unanswered || agent.gone) return;
            setDraft("");
            void act(() => store.send(text));
          }}
        >
          <label htmlFor="chat-message" className="sr-only">
            Message
          </label>
          <textarea
            id="chat-message"
            // A new user types at once: the composer has the focus when the chat opens.
            autoFocus
            rows={2}
            disabled={agent.gone}
            placeholder={
              agent.gone
                ? `${agent.name} is no longer served by this console: this thread is read-only`
                : unanswered
                  ? "Answer the open approvals first"
                  : "Message the agent (Enter sends, Shift+Enter for a new line)"
            }
            className="min-h-[2.75rem] flex-1 resize-y rounded-md border border-slate-300 px-3 py-2 text-sm"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
          />
          <button
            type="submit"
            disabled={running || unanswered > 0 || !draft.trim() || agent.gone}
            className="rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
          >
            Send
          </button>
        </form>
      </section>
      {agent.sharedState || hasContent(snapshot.state) ? (
        <aside
          className="hidden w-72 shrink-0 overflow-y-auto rounded-lg border border-slate-200 bg-white p-3 lg:block"
          aria-labelledby="state-heading"
        >
          <h2 id="state-heading" className="text-sm font-semibold">
            Shared state
          </h2>
          <p className="mb-2 text-xs text-slate-500">Updated live by STATE_SNAPSHOT and STATE_DELTA.</p>
          <JsonView value={snapshot.state} openDepth={3} label="Shared state" />
        </aside>
      ) : null}
    </div>
  );
}

/** A state worth a panel: anything but nothing, an empty object or an empty list. */
function hasContent(state: unknown): boolean {
  if (state === undefined || state === null) return false;
  if (Array.isArray(state)) return state.length > 0;
  return typeof state !== "object" || Object.keys(state).length > 0;
}

function label(status: string): string {
  return (
    (
      {
        idle: "ready",
        running: "running…",
        awaiting_input: "waiting for approval",
        finished: "finished",
        cancelled: "stopped",
        error: "failed",
      } as Record<string, string>
    )[status] ?? status
  );
}
