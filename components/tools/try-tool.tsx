"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useState } from "react";
import { LocalTime } from "../common/local-time";
import type { CallOutcome, PastCall, ToolResult, TryCallAnswer } from "@/lib/api/contracts";
import { ArgsEditor } from "../common/args-editor";
import { ErrorBox } from "../common/error-box";
import { ToolValueView } from "../common/content-blocks-view";
import { JsonView } from "../common/json-view";
import { requestJson } from "../common/request-json";
import { initialValue } from "../common/schema-form";
import { schemaProblems } from "@/lib/client/schema-problems";

interface Attempt {
  callId: string;
  args: Record<string, unknown>;
  result: CallOutcome;
}

/**
 * Try a tool: a form from its input schema (or raw JSON), Run, and the result. A call that needs
 * approval shows as waiting, and "Check again" asks about the same call (same id and arguments),
 * which the executor answers from the approval or the call record without running it twice.
 * The tool's recent calls are listed below, to pin and to run again.
 */
export function TryTool({ name, schema, initialCalls }: { name: string; schema: Record<string, unknown>; initialCalls: PastCall[] }) {
  const [args, setArgs] = useState<unknown>(() => initialValue(schema) ?? {});
  const [valid, setValid] = useState(() => schemaProblems(schema, args).length === 0);
  // The schema's complaints are listed once the arguments were edited or a run was asked for: an
  // untouched form's empty required fields are not mistakes yet.
  const [checked, setChecked] = useState(false);
  // Bumped to rebuild the editor when "Run again" replaces its value.
  const [editorKey, setEditorKey] = useState(0);
  const [running, setRunning] = useState(false);
  const [attempt, setAttempt] = useState<Attempt>();
  const [error, setError] = useState<unknown>();
  const [calls, setCalls] = useState(initialCalls);
  const router = useRouter();
  const base = `/api/tools/${encodeURIComponent(name)}/calls`;

  const reloadCalls = useCallback(async () => {
    try {
      setCalls((await requestJson<{ items: PastCall[] }>(base)).items);
    } catch {
      // The list is a convenience: the result above already shows what happened.
    }
  }, [base]);

  const run = async (runArgs: Record<string, unknown>, callId?: string) => {
    setRunning(true);
    setError(undefined);
    try {
      const answer = await requestJson<TryCallAnswer>(base, { method: "POST", body: { args: runArgs, ...(callId && { callId }) } });
      setAttempt({ callId: answer.callId, args: runArgs, result: answer.result });
      // A new approval changes the pending count in the navigation.
      if ("pending" in answer.result) router.refresh();
      await reloadCalls();
    } catch (e) {
      setError(e);
    } finally {
      setRunning(false);
    }
  };

  const pin = async (call: PastCall) => {
    try {
      await requestJson(`${base}/${encodeURIComponent(call.callId)}/pin`, { method: "POST", body: { pinned: !call.pinned } });
      await reloadCalls();
    } catch (e) {
      setError(e);
    }
  };

  const pending = attempt && "pending" in attempt.result ? attempt.result.pending : undefined;

  return (
    <div className="space-y-4">
      <form
        aria-label={`Try ${name}`}
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          setChecked(true);
          if (valid && !running) void run((args ?? {}) as Record<string, unknown>);
        }}
      >
        <ArgsEditor
          key={editorKey}
          schema={schema}
          value={args}
          label="Arguments"
          showProblems={checked}
          onChange={(value, ok) => {
            setArgs(value);
            setValid(ok);
            setChecked(true);
          }}
        />
        <button
          type="submit"
          disabled={(checked && !valid) || running}
          className="rounded-md bg-indigo-700 px-4 py-1.5 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-50"
        >
          {running ? "Running…" : "Run"}
        </button>
      </form>

      {error ? <ErrorBox error={error} title="The call could not be made" /> : null}

      {attempt ? (
        <section aria-label="Result" className="space-y-2 rounded-lg border border-slate-200 bg-white p-3">
          <h3 className="text-sm font-semibold">
            Result <span className="font-mono text-xs font-normal text-slate-500">call {attempt.callId}</span>
          </h3>
          {pending ? (
            <div className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm" role="status">
              <p className="font-medium">
                Waiting for approval <span className="font-mono text-xs font-normal text-slate-600">{pending.approvalId}</span>
              </p>
              <p>
                This tool asks a person before it runs. Decide on the{" "}
                <Link href="/approvals" className="text-indigo-700 underline">
                  Approvals page
                </Link>
                , then check again: the same call is answered, it does not run twice.
              </p>
              <button
                type="button"
                disabled={running}
                className="rounded-md border border-slate-400 bg-white px-3 py-1.5 font-medium hover:bg-slate-100 disabled:opacity-50"
                onClick={() => void run(attempt.args, attempt.callId)}
              >
                {running ? "Checking…" : "Check again"}
              </button>
            </div>
          ) : (
            <ResultView result={attempt.result as ToolResult} label={`Result of ${name}`} tool={name} />
          )}
        </section>
      ) : null}

      <section aria-labelledby="recent-calls-heading" className="space-y-2">
        <h3 id="recent-calls-heading" className="text-sm font-semibold">
          Recent calls
        </h3>
        {calls.length === 0 ? <p className="text-sm text-slate-500">No completed calls yet.</p> : null}
        <ul className="space-y-2" aria-labelledby="recent-calls-heading">
          {calls.map((call) => (
            <li
              key={`${call.principal}/${call.scope}/${call.callId}/${call.createdAt}`}
              aria-label={`Call ${call.callId}`}
              className="rounded-lg border border-slate-200 bg-white p-3 text-sm"
            >
              <div className="flex flex-wrap items-center gap-2">
                <span
                  className={`rounded px-1.5 py-0.5 text-xs ${call.result.ok ? "bg-emerald-100 text-emerald-800" : "bg-red-100 text-red-800"}`}
                >
                  {call.result.ok ? "ok" : call.result.error.kind}
                </span>
                {call.pinned ? <span className="rounded bg-indigo-100 px-1.5 py-0.5 text-xs text-indigo-800">pinned</span> : null}
                <span className="text-xs text-slate-500">
                  <LocalTime at={call.createdAt} /> · {call.durationMs} ms · {call.principal}
                  {call.scope === "console:try" ? " · console" : ""}
                </span>
                <span className="ml-auto flex gap-2">
                  <button
                    type="button"
                    aria-pressed={call.pinned}
                    className="rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100"
                    onClick={() => void pin(call)}
                  >
                    {call.pinned ? "Unpin" : "Pin"}
                  </button>
                  <button
                    type="button"
                    disabled={running || !call.args}
                    className="rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100 disabled:opacity-50"
                    onClick={() => {
                      const again = call.args ?? {};
                      setArgs(again);
                      setValid(true);
                      setEditorKey((k) => k + 1);
                      void run(again);
                    }}
                  >
                    Run again
                  </button>
                </span>
              </div>
              <div className="mt-2 grid grid-cols-1 gap-2 md:grid-cols-2">
                <div>
                  <h4 className="text-xs font-medium text-slate-500">Arguments</h4>
                  <JsonView value={call.args ?? {}} openDepth={1} label={`Arguments of call ${call.callId}`} />
                </div>
                <div>
                  <h4 className="text-xs font-medium text-slate-500">Result</h4>
                  <ResultView result={call.result} label={`Result of call ${call.callId}`} tool={name} openDepth={1} />
                </div>
              </div>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

/** A call's result: its value as JSON (as MCP content blocks when it is made of them), or its error. */
function ResultView({ result, label, tool, openDepth = 3 }: { result: ToolResult; label: string; tool: string; openDepth?: number }) {
  if (result.ok) return <ToolValueView value={result.value} tool={tool} label={label} openDepth={openDepth} />;
  const { kind, message, issues } = result.error;
  return (
    <div aria-label={label} className="rounded-md border border-red-200 bg-red-50 p-2 text-sm text-red-900">
      <p>
        <span className="font-mono text-xs">{kind}</span> {message}
      </p>
      {issues?.length ? (
        <ul className="mt-1 list-disc pl-5 text-xs">
          {issues.map((issue, i) => (
            <li key={i}>
              <code>{issue.path || "/"}</code> {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
