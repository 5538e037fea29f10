"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useRef, useState } from "react";
import type { SourceImportAnswer } from "@/lib/api/contracts";
import { ErrorBox } from "../common/error-box";
import { requestJson } from "../common/request-json";
import { a2aFormProblem, a2aRequestBody, EMPTY_A2A, type A2AForm, type A2ATestAnswer } from "./a2a-form";
import { Warnings } from "./openapi-preview";

type Step =
  | { kind: "edit" }
  | { kind: "testing" }
  | { kind: "tested"; result: A2ATestAnswer }
  | { kind: "importing"; result: A2ATestAnswer }
  | { kind: "done"; sourceId: string; name: string; tools: number; warnings: string[] };

const input = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm disabled:bg-slate-100";
const mono = `${input} font-mono text-xs`;
const label = "block text-sm font-medium";
const hint = "mt-0.5 text-xs text-slate-500";

/**
 * The "Add A2A agent" dialog: the agent's base URL and its credential (sent to the agent's origin
 * only); "Test" reads its card and shows the tools the import would register (one per skill), then
 * the import, all or nothing.
 */
export function AddA2ADialog({ admin = false }: { admin?: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const router = useRouter();
  const id = useId();
  const [form, setForm] = useState<A2AForm>(EMPTY_A2A);
  const [step, setStep] = useState<Step>({ kind: "edit" });
  const [error, setError] = useState<unknown>();

  const update = (patch: Partial<A2AForm>) => {
    setForm((current) => ({ ...current, ...patch }));
    // Any change makes the test stale: test again before importing.
    setStep((current) => (current.kind === "tested" ? { kind: "edit" } : current));
    setError(undefined);
  };

  const open = () => {
    setForm(EMPTY_A2A);
    setStep({ kind: "edit" });
    setError(undefined);
    dialog.current?.showModal();
  };

  const test = async () => {
    setStep({ kind: "testing" });
    setError(undefined);
    try {
      const result = await requestJson<A2ATestAnswer>("/api/sources/a2a/test", { method: "POST", body: a2aRequestBody(form) });
      setStep({ kind: "tested", result });
    } catch (e) {
      setError(e);
      setStep({ kind: "edit" });
    }
  };

  const importNow = async (tested: A2ATestAnswer) => {
    setStep({ kind: "importing", result: tested });
    setError(undefined);
    try {
      const answer = await requestJson<SourceImportAnswer>("/api/sources/a2a", { method: "POST", body: a2aRequestBody(form) });
      setStep({
        kind: "done",
        sourceId: answer.source.id,
        name: answer.source.name,
        tools: answer.tools.length,
        warnings: answer.warnings,
      });
      router.refresh();
    } catch (e) {
      setError(e);
      setStep({ kind: "tested", result: tested });
    }
  };

  const problem = a2aFormProblem(form);
  const locked = step.kind === "testing" || step.kind === "importing";
  const field = (name: keyof A2AForm) => ({
    id: `${id}-${name}`,
    value: form[name],
    onChange: (e: { target: { value: string } }) => update({ [name]: e.target.value }),
  });

  return (
    <>
      <button
        type="button"
        className="rounded-md bg-indigo-700 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-800"
        onClick={open}
      >
        Add A2A agent
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={`${id}-title`}
        className="m-auto w-full max-w-3xl rounded-lg p-0 shadow-xl backdrop:bg-slate-900/40"
      >
        <div className="max-h-[90vh] overflow-y-auto p-6">
          <div className="flex items-start justify-between gap-4">
            <h2 id={`${id}-title`} className="text-lg font-semibold">
              Add an A2A agent
            </h2>
            <button
              type="button"
              className="rounded-md border border-slate-300 px-2 py-1 text-sm hover:bg-slate-100"
              onClick={() => dialog.current?.close()}
            >
              Close
            </button>
          </div>

          {step.kind === "done" ? (
            <div className="mt-4 space-y-3" role="status">
              <p className="text-sm font-medium text-emerald-800">
                Imported {step.tools} {step.tools === 1 ? "tool" : "tools"} from {step.name}.
              </p>
              <Warnings warnings={step.warnings} />
              <p className="text-sm">
                <Link href={`/tools?source=${encodeURIComponent(step.sourceId)}`} className="text-indigo-700 underline">
                  See its tools
                </Link>
              </p>
            </div>
          ) : (
            <form
              className="mt-4 space-y-5"
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                if (step.kind === "tested") void importNow(step.result);
                else if (step.kind === "edit" && !problem) void test();
              }}
            >
              <fieldset disabled={locked} className="space-y-3">
                <legend className="text-sm font-semibold">Agent</legend>
                <div>
                  <label htmlFor={`${id}-url`} className={label}>
                    Agent URL
                  </label>
                  <input type="url" placeholder="https://agent.example.com" className={input} {...field("url")} />
                  <p className={hint}>Its base URL: the card is read from /.well-known/agent-card.json under it (A2A 1.0 or 0.3).</p>
                </div>
                <div>
                  <label htmlFor={`${id}-bearer`} className={label}>
                    Bearer token (optional, stored as a secret)
                  </label>
                  <input type="password" autoComplete="off" className={input} {...field("bearer")} />
                </div>
                <div>
                  <label htmlFor={`${id}-secretHeaders`} className={label}>
                    Secret headers
                  </label>
                  <textarea rows={2} placeholder="X-Api-Key: …" className={mono} {...field("secretHeaders")} />
                  <p className={hint}>One “Name: value” per line. Credentials go only to the agent&apos;s own origin, never shown again.</p>
                </div>
              </fieldset>

              <fieldset disabled={locked} className="grid gap-3 sm:grid-cols-2">
                <legend className="mb-1 text-sm font-semibold">Options</legend>
                <div>
                  <label htmlFor={`${id}-name`} className={label}>
                    Source name (optional)
                  </label>
                  <input placeholder="the agent's own name" className={input} {...field("name")} />
                </div>
                <div>
                  <label htmlFor={`${id}-prefix`} className={label}>
                    Tool name prefix (optional)
                  </label>
                  <input placeholder="travel_" className={input} {...field("prefix")} />
                </div>
                {admin ? (
                  <div className="sm:col-span-2">
                    <label htmlFor={`${id}-allow`} className={label}>
                      Also allow these private addresses (admin)
                    </label>
                    <input placeholder="10.0.0.0/8, agent.internal" className={input} {...field("allow")} />
                  </div>
                ) : null}
              </fieldset>

              {problem && form.url ? (
                <p role="alert" className="text-sm text-red-700">
                  {problem}
                </p>
              ) : null}
              {error ? (
                <ErrorBox
                  error={error}
                  title={
                    step.kind === "tested" || step.kind === "importing"
                      ? "The import failed; nothing was registered"
                      : "The agent test failed"
                  }
                />
              ) : null}

              {step.kind === "tested" || step.kind === "importing" ? <AgentTestView result={step.result} /> : null}
              {step.kind === "testing" ? (
                <p role="status" className="text-sm">
                  Reading the agent&apos;s card…
                </p>
              ) : step.kind === "importing" ? (
                <p role="status" className="text-sm">
                  Importing {step.result.tools.length} tools from {step.result.card.name}…
                </p>
              ) : null}

              <div className="flex gap-2">
                {step.kind === "tested" || step.kind === "importing" ? (
                  <>
                    <button
                      type="submit"
                      disabled={locked || step.result.tools.length === 0}
                      className="rounded-md bg-indigo-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-50"
                    >
                      Import {step.result.tools.length} {step.result.tools.length === 1 ? "tool" : "tools"}
                    </button>
                    <button
                      type="button"
                      disabled={locked}
                      className="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100 disabled:opacity-50"
                      onClick={() => setStep({ kind: "edit" })}
                    >
                      Back
                    </button>
                  </>
                ) : (
                  <button
                    type="submit"
                    disabled={problem !== undefined || locked}
                    className="rounded-md bg-indigo-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-50"
                  >
                    Test agent
                  </button>
                )}
              </div>
            </form>
          )}
        </div>
      </dialog>
    </>
  );
}

/** What the test found: the card, the tools the import would register (one per skill), and the warnings. */
function AgentTestView({ result }: { result: A2ATestAnswer }) {
  const { card } = result;
  return (
    <section aria-label="Agent test" className="space-y-2">
      <p className="text-sm">
        Found <strong>{card.name}</strong>
        {card.version ? ` ${card.version}` : ""} (A2A {card.protocolVersion || "?"}): {result.tools.length}{" "}
        {result.tools.length === 1 ? "skill" : "skills"}.
      </p>
      {card.description ? <p className="text-xs text-slate-600">{card.description}</p> : null}
      <Warnings warnings={result.warnings} />
      <div className="max-h-72 overflow-y-auto rounded-md border border-slate-200">
        <table className="w-full text-left text-xs">
          <caption className="sr-only">Tools the import would register</caption>
          <thead className="sticky top-0 bg-slate-50 uppercase tracking-wide text-slate-500">
            <tr>
              <th scope="col" className="px-2 py-1">
                Tool
              </th>
              <th scope="col" className="px-2 py-1">
                Skill
              </th>
              <th scope="col" className="px-2 py-1">
                Arguments
              </th>
            </tr>
          </thead>
          <tbody>
            {result.tools.map((tool) => (
              <tr key={tool.skillId} className="border-t border-slate-100 align-top">
                <th scope="row" className="px-2 py-1 font-mono font-normal" title={tool.description}>
                  {tool.toolName}
                </th>
                <td className="px-2 py-1">{tool.title}</td>
                <td className="px-2 py-1">{tool.typed ? "typed (from the card)" : "a message"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
