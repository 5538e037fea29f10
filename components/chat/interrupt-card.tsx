"use client";

import { useState } from "react";
import type { OpenInterrupt } from "@/lib/client";
import { ArgsEditor } from "../common/args-editor";
import { JsonView } from "../common/json-view";
import { timeLeft, useNow } from "../common/use-now";

/** A decision someone took outside this card (the inbox, another operator). */
export interface RemoteDecision {
  status: string;
  decidedBy: string;
  reason?: string;
}

export interface InterruptActions {
  approve(id: string, editedArgs?: Record<string, unknown>): void;
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
  const metadata = (interrupt.metadata ?? {}) as { toolName?: string; arguments?: Record<string, unknown>; decidedBy?: string; status?: string };
  const tool = metadata.toolName ?? "tool";
  const [mode, setMode] = useState<"idle" | "deny" | "edit">("idle");
  const [reason, setReason] = useState("");
  const [edited, setEdited] = useState<unknown>(metadata.arguments ?? {});
  const [editValid, setEditValid] = useState(true);
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
    <section aria-labelledby={headingId} className="rounded-lg border-2 border-amber-300 bg-amber-50 p-4 text-sm" data-interrupt-id={interrupt.id}>
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
        <JsonView value={metadata.arguments ?? {}} label={`Proposed arguments of ${tool}`} />
      </div>
      {decided ? (
        <p className="mt-3 font-medium text-slate-800" role="status">
          {decided}
          {answer && !busy ? " · waiting for the other open approvals" : ""}
        </p>
      ) : left.expired ? (
        <div className="mt-3 flex items-center gap-2">
          <p className="text-red-800">This approval expired; it can only be cancelled.</p>
          <button type="button" disabled={busy} className="rounded-md border border-slate-400 bg-white px-3 py-1.5 font-medium hover:bg-slate-100 disabled:opacity-50" onClick={() => actions.cancel(interrupt.id)}>
            Cancel call
          </button>
        </div>
      ) : mode === "deny" ? (
        <form
          className="mt-3 space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            actions.deny(interrupt.id, reason.trim() || undefined);
          }}
        >
          <label htmlFor={`${interrupt.id}-reason`} className="block text-xs font-medium">
            Reason (optional, shown to the agent)
          </label>
          <input id={`${interrupt.id}-reason`} className="w-full rounded-md border border-slate-300 bg-white px-2 py-1.5" value={reason} onChange={(e) => setReason(e.target.value)} autoFocus />
          <div className="flex gap-2">
            <button type="submit" disabled={busy} className="rounded-md bg-red-700 px-3 py-1.5 font-medium text-white hover:bg-red-800 disabled:opacity-50">
              Confirm deny
            </button>
            <button type="button" className="rounded-md border border-slate-300 bg-white px-3 py-1.5 hover:bg-slate-100" onClick={() => setMode("idle")}>
              Back
            </button>
          </div>
        </form>
      ) : mode === "edit" ? (
        <div className="mt-3 space-y-2">
          <ArgsEditor
            schema={schema ?? { type: "object" }}
            value={edited}
            label="Edited arguments"
            onChange={(value, valid) => {
              setEdited(value);
              setEditValid(valid);
            }}
          />
          <div className="flex gap-2">
            <button
              type="button"
              disabled={busy || !editValid}
              className="rounded-md bg-emerald-700 px-3 py-1.5 font-medium text-white hover:bg-emerald-800 disabled:opacity-50"
              onClick={() => actions.approve(interrupt.id, edited as Record<string, unknown>)}
            >
              Approve with these arguments
            </button>
            <button type="button" className="rounded-md border border-slate-300 bg-white px-3 py-1.5 hover:bg-slate-100" onClick={() => setMode("idle")}>
              Back
            </button>
          </div>
        </div>
      ) : (
        <div className="mt-3 flex flex-wrap gap-2">
          <button type="button" disabled={busy} className="rounded-md bg-emerald-700 px-3 py-1.5 font-medium text-white hover:bg-emerald-800 disabled:opacity-50" onClick={() => actions.approve(interrupt.id)}>
            Approve
          </button>
          <button type="button" disabled={busy} className="rounded-md bg-white px-3 py-1.5 font-medium text-red-800 ring-1 ring-red-300 hover:bg-red-50 disabled:opacity-50" onClick={() => setMode("deny")}>
            Deny…
          </button>
          <button type="button" disabled={busy} className="rounded-md bg-white px-3 py-1.5 font-medium ring-1 ring-slate-300 hover:bg-slate-100 disabled:opacity-50" onClick={() => setMode("edit")}>
            Edit arguments…
          </button>
        </div>
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
