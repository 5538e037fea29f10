"use client";

import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import type { ApprovalPolicy, Target } from "@/lib/api/contracts";
import { ErrorBox } from "../common/error-box";
import { requestJson } from "../common/request-json";

export interface PolicySettings {
  approval: ApprovalPolicy;
  targets: Target[];
  enabled: boolean;
  timeoutMs: number;
  retries: number;
}

const APPROVAL_LABELS: Record<ApprovalPolicy, string> = {
  default: "Default",
  always: "Always ask",
  never: "Never ask",
  once_per_thread: "Ask once per thread",
};

/**
 * What an operator controls on a tool: approval, targets, enabled, timeout and retries. Saves only
 * the fields that changed (PATCH /api/tools/[name]), which the audit trail then records.
 */
export function PolicyEditor({
  name,
  saved,
  confirm,
  targets,
}: {
  name: string;
  saved: PolicySettings;
  confirm: boolean;
  targets: readonly Target[];
}) {
  const router = useRouter();
  const id = useId();
  const [base, setBase] = useState(saved);
  const [draft, setDraft] = useState(saved);
  const [state, setState] = useState<"idle" | "saving" | "saved">("idle");
  const [error, setError] = useState<unknown>();

  const changes = diff(base, draft);
  const dirty = Object.keys(changes).length > 0;
  const update = (patch: Partial<PolicySettings>) => {
    setDraft((current) => ({ ...current, ...patch }));
    setState("idle");
  };

  const save = async () => {
    setState("saving");
    setError(undefined);
    try {
      const { tool } = await requestJson<{
        tool: { approval: ApprovalPolicy; enabled: boolean; policy: { targets: Target[]; timeoutMs: number; retries: number } };
      }>(`/api/tools/${encodeURIComponent(name)}`, { method: "PATCH", body: changes });
      const next = {
        approval: tool.approval,
        enabled: tool.enabled,
        targets: tool.policy.targets,
        timeoutMs: tool.policy.timeoutMs,
        retries: tool.policy.retries,
      };
      setBase(next);
      setDraft(next);
      setState("saved");
      // The exports and badges on this page follow the saved policy.
      router.refresh();
    } catch (e) {
      setError(e);
      setState("idle");
    }
  };

  const input = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm";
  return (
    <form
      aria-label="Policy"
      className="space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        if (dirty) void save();
      }}
    >
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        <div>
          <label htmlFor={`${id}-approval`} className="block text-sm font-medium">
            Approval
          </label>
          <select
            id={`${id}-approval`}
            className={input}
            value={draft.approval}
            aria-describedby={`${id}-approval-hint`}
            onChange={(e) => update({ approval: e.target.value as ApprovalPolicy })}
          >
            {(Object.keys(APPROVAL_LABELS) as ApprovalPolicy[]).map((policy) => (
              <option key={policy} value={policy}>
                {policy === "default" ? `Default (${confirm ? "asks" : "does not ask"})` : APPROVAL_LABELS[policy]}
              </option>
            ))}
          </select>
          <p id={`${id}-approval-hint`} className="mt-1 text-xs text-slate-500">
            Whether a call waits for a person before it runs.
          </p>
        </div>
        <div>
          <label htmlFor={`${id}-timeout`} className="block text-sm font-medium">
            Timeout (ms)
          </label>
          <input
            id={`${id}-timeout`}
            type="number"
            min={1}
            max={900000}
            step={1}
            required
            className={input}
            value={Number.isNaN(draft.timeoutMs) ? "" : draft.timeoutMs}
            onChange={(e) => update({ timeoutMs: e.target.valueAsNumber })}
          />
        </div>
        <div>
          <label htmlFor={`${id}-retries`} className="block text-sm font-medium">
            Retries
          </label>
          <input
            id={`${id}-retries`}
            type="number"
            min={0}
            max={10}
            step={1}
            required
            aria-describedby={`${id}-retries-hint`}
            className={input}
            value={Number.isNaN(draft.retries) ? "" : draft.retries}
            onChange={(e) => update({ retries: e.target.valueAsNumber })}
          />
          <p id={`${id}-retries-hint`} className="mt-1 text-xs text-slate-500">
            Extra attempts after a transient failure.
          </p>
        </div>
      </div>
      <fieldset>
        <legend className="text-sm font-medium">Targets</legend>
        <p className="text-xs text-slate-500">The surfaces and formats this tool is served or exported to.</p>
        <div className="mt-2 flex flex-wrap gap-x-4 gap-y-2">
          {targets.map((target) => (
            <label key={target} className="flex items-center gap-1.5 text-sm">
              <input
                type="checkbox"
                checked={draft.targets.includes(target)}
                onChange={(e) =>
                  update({
                    targets: e.target.checked
                      ? targets.filter((t) => t === target || draft.targets.includes(t))
                      : draft.targets.filter((t) => t !== target),
                  })
                }
              />
              {target}
            </label>
          ))}
        </div>
      </fieldset>
      <label className="flex items-center gap-2 text-sm font-medium">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => update({ enabled: e.target.checked })} />
        Enabled
        <span className="font-normal text-slate-500">(a disabled tool is offered to no one and its calls are refused)</span>
      </label>
      <div className="flex items-center gap-3">
        <button
          type="submit"
          disabled={!dirty || state === "saving"}
          className="rounded-md bg-indigo-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-50"
        >
          {state === "saving" ? "Saving…" : "Save policy"}
        </button>
        {dirty ? (
          <button
            type="button"
            className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100"
            onClick={() => setDraft(base)}
          >
            Undo changes
          </button>
        ) : null}
        <span role="status" className="text-sm text-emerald-700">
          {state === "saved" && !dirty ? "Saved" : ""}
        </span>
      </div>
      {error ? <ErrorBox error={error} title="The policy was not saved" /> : null}
    </form>
  );
}

function diff(before: PolicySettings, after: PolicySettings): Partial<PolicySettings> {
  const out: Partial<PolicySettings> = {};
  if (before.approval !== after.approval) out.approval = after.approval;
  if (before.enabled !== after.enabled) out.enabled = after.enabled;
  if (before.timeoutMs !== after.timeoutMs) out.timeoutMs = after.timeoutMs;
  if (before.retries !== after.retries) out.retries = after.retries;
  if ([...before.targets].sort().join() !== [...after.targets].sort().join()) out.targets = after.targets;
  return out;
}
