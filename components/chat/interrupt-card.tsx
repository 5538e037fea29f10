"use client";

import { useEffect, useRef } from "react";
import type { OpenInterrupt } from "@/lib/client";
import { DecisionControls } from "../approvals/decision-controls";
import { JsonView } from "../common/json-view";
import { timeLeft, useNow } from "../common/use-now";

/** A decision someone took outside this card (the inbox, another operator). */
export interface RemoteDecision {
  status: string;
  decidedBy: string;
  reason?: string;
}

export interface InterruptActions {
  approve(id: string, editedArgs?: Record<string, unknown>, rememberForThread?: boolean): void;
  deny(id: string, reason?: string): void;
  cancel(id: string): void;
}

/**
 * A call that waits for a person: the tool, its arguments, the question and the time left.
 * Approve in one click, deny with an optional reason, or edit the arguments then approve.
 * An expired interrupt can only be cancelled.
 */
export function InterruptCard({
  open,
  schema,
  actions,
  busy,
  remote,
}: {
  open: OpenInterrupt;
  schema?: Record<string, unknown>;
  actions: InterruptActions;
  busy: boolean;
  remote?: RemoteDecision;
}) {
  const { interrupt, answer } = open;
  const now = useNow();
  const card = useRef<HTMLElement>(null);
  // A new card ends the conversation: bring its buttons into view (at 1280×900 they fell below the fold).
  useEffect(() => {
    card.current?.scrollIntoView({ block: "end" });
  }, []);
  const metadata = (interrupt.metadata ?? {}) as {
    toolName?: string;
    arguments?: Record<string, unknown>;
    decidedBy?: string;
    status?: string;
    approvalPolicy?: string;
  };
  const tool = metadata.toolName ?? "tool";
  const left = timeLeft(interrupt.expiresAt, now);
  const headingId = `interrupt-${interrupt.id}-title`;
  const decided = remote
    ? `${capitalise(remote.status)} by ${remote.decidedBy}${remote.reason ? ` (${remote.reason})` : ""}`
    : answer
      ? describeAnswer(answer)
      : metadata.decidedBy && metadata.status !== "pending"
        ? `${capitalise(metadata.status ?? "decided")} by ${metadata.decidedBy}`
        : undefined;

  return (
    <section
      ref={card}
      aria-labelledby={headingId}
      className="rounded-lg border-2 border-amber-300 bg-amber-50 p-4 text-sm"
      data-interrupt-id={interrupt.id}
    >
      <header className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={headingId} className="font-semibold">
          Approval needed: <span className="font-mono">{tool}</span>
        </h3>
        <span className={`text-xs ${left.expired ? "font-semibold text-red-700" : "text-slate-600"}`} aria-label="Time left">
          {left.label}
        </span>
      </header>
      {interrupt.message ? <p className="mt-1 text-slate-700">{interrupt.message}</p> : null}
      <div className="mt-2">
        <h4 className="text-xs font-medium text-slate-500">Proposed arguments</h4>
        <div className="max-h-40 overflow-auto">
          <JsonView value={metadata.arguments ?? {}} label={`Proposed arguments of ${tool}`} />
        </div>
      </div>
      {decided ? (
        <p className="mt-3 font-medium text-slate-800" role="status">
          {decided}
          {answer && !busy ? " · waiting for the other open approvals" : ""}
        </p>
      ) : left.expired ? (
        <div className="mt-3 flex items-center gap-2">
          <p className="text-red-800">This approval expired; it can only be cancelled.</p>
          <button
            type="button"
            disabled={busy}
            className="rounded-md border border-slate-400 bg-white px-3 py-1.5 font-medium hover:bg-slate-100 disabled:opacity-50"
            onClick={() => actions.cancel(interrupt.id)}
          >
            Cancel call
          </button>
        </div>
      ) : (
        <DecisionControls
          busy={busy}
          proposedArgs={metadata.arguments ?? {}}
          schema={schema}
          handlers={{
            approve: (editedArgs) => actions.approve(interrupt.id, editedArgs),
            deny: (reason) => actions.deny(interrupt.id, reason),
            ...(metadata.approvalPolicy === "once_per_thread"
              ? { approveForThread: () => actions.approve(interrupt.id, undefined, true) }
              : {}),
          }}
        />
      )}
    </section>
  );
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function describeAnswer(answer: NonNullable<OpenInterrupt["answer"]>): string {
  if (answer.status === "cancelled") return "You cancelled this call";
  const payload = (answer.payload ?? {}) as { approved?: boolean; editedArgs?: unknown };
  if (payload.approved === false) return "You denied this call";
  return payload.editedArgs ? "You approved this call with edited arguments" : "You approved this call";
}
