"use client";

import { useId, useState } from "react";
import { ArgsEditor } from "../common/args-editor";

export interface DecisionHandlers {
  approve(editedArgs?: Record<string, unknown>): void;
  deny(reason?: string): void;
  /** When set, an extra "Approve for this thread" button (tools asked once per thread). */
  approveForThread?: () => void;
}

/**
 * The controls that decide one call, the same in the chat's card and in the inbox: Approve in one
 * click, Deny with an optional reason, or Edit the arguments (a form from the tool's input
 * schema, or raw JSON checked against it) then approve.
 */
export function DecisionControls({
  handlers,
  proposedArgs,
  schema,
  busy,
}: {
  handlers: DecisionHandlers;
  proposedArgs: Record<string, unknown>;
  schema?: Record<string, unknown>;
  busy: boolean;
}) {
  const id = useId();
  const [mode, setMode] = useState<"idle" | "deny" | "edit">("idle");
  const [reason, setReason] = useState("");
  const [edited, setEdited] = useState<unknown>(proposedArgs);
  const [editValid, setEditValid] = useState(true);
  const back = (
    <button
      type="button"
      className="rounded-md border border-slate-300 bg-white px-3 py-1.5 hover:bg-slate-100"
      onClick={() => setMode("idle")}
    >
      Back
    </button>
  );

  if (mode === "deny")
    return (
      <form
        className="mt-3 space-y-2"
        onSubmit={(e) => {
          e.preventDefault();
          handlers.deny(reason.trim() || undefined);
        }}
      >
        <label htmlFor={`${id}-reason`} className="block text-xs font-medium">
          Reason (optional, shown to the agent)
        </label>
        <input
          id={`${id}-reason`}
          className="w-full rounded-md border border-slate-300 bg-white px-2 py-1.5"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          autoFocus
        />
        <div className="flex gap-2">
          <button
            type="submit"
            disabled={busy}
            className="rounded-md bg-red-700 px-3 py-1.5 font-medium text-white hover:bg-red-800 disabled:opacity-50"
          >
            Confirm deny
          </button>
          {back}
        </div>
      </form>
    );

  if (mode === "edit")
    return (
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
            onClick={() => handlers.approve(edited as Record<string, unknown>)}
          >
            Approve with these arguments
          </button>
          {back}
        </div>
      </div>
    );

  return (
    <div className="mt-3 flex flex-wrap gap-2">
      <button
        type="button"
        disabled={busy}
        className="rounded-md bg-emerald-700 px-3 py-1.5 font-medium text-white hover:bg-emerald-800 disabled:opacity-50"
        onClick={() => handlers.approve()}
      >
        Approve
      </button>
      {handlers.approveForThread ? (
        <button
          type="button"
          disabled={busy}
          className="rounded-md bg-emerald-50 px-3 py-1.5 font-medium text-emerald-900 ring-1 ring-emerald-300 disabled:opacity-50"
          onClick={handlers.approveForThread}
        >
          Approve for this thread
        </button>
      ) : null}
      <button
        type="button"
        disabled={busy}
        className="rounded-md bg-white px-3 py-1.5 font-medium text-red-800 ring-1 ring-red-300 hover:bg-red-50 disabled:opacity-50"
        onClick={() => setMode("deny")}
      >
        Deny…
      </button>
      <button
        type="button"
        disabled={busy}
        className="rounded-md bg-white px-3 py-1.5 font-medium ring-1 ring-slate-300 hover:bg-slate-100 disabled:opacity-50"
        onClick={() => setMode("edit")}
      >
        Edit arguments…
      </button>
    </div>
  );
}
