"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useRef, useState, type ReactNode } from "react";
import type { SourceImportAnswer } from "@/lib/api/contracts";
import { ErrorBox } from "../common/error-box";
import { requestJson } from "../common/request-json";
import { Warnings } from "./openapi-preview";

type Step<T> =
  | { kind: "edit" }
  | { kind: "testing" }
  | { kind: "tested"; result: T }
  | { kind: "importing"; result: T }
  | { kind: "done"; done: DoneView };

/** What the dialog says once a source was added: a sentence, where to go next, and the warnings. */
export interface DoneView {
  message: string;
  href: string;
  link: string;
  warnings: string[];
}

/** The props that bind an input or textarea to one field of a dialog's form. */
export interface FieldControl {
  id: string;
  value: string;
  onChange: (e: { target: { value: string } }) => void;
}

/** What a dialog's own fields get: the form, a way to change it, input props by field name, ids and roles. */
export interface FieldsProps<F> {
  form: F;
  update: (patch: Partial<F>) => void;
  field: (name: keyof F & string) => FieldControl;
  id: string;
  admin: boolean;
}

export interface ConnectSourceDialogProps<F, T extends object> {
  /** The API's path for this kind of source: POST `${path}/test` tests, POST `${path}` imports. */
  path: string;
  empty: F;
  /** Why the form cannot be sent yet, or undefined. */
  problem: (form: F) => string | undefined;
  /** Whether the problem is worth showing yet (the person has started to fill the form). */
  started: (form: F) => boolean;
  body: (form: F) => unknown;
  admin: boolean;
  text: {
    button: string;
    title: string;
    test: string;
    testing: string;
    testFailed: string;
    importing: (result: T) => string;
  };
  fields: (props: FieldsProps<F>) => ReactNode;
  /** What a test found: the source and the tools the import would register. */
  result: (result: T) => ReactNode;
  /**
   * For a source that brings no tools (a remote agent): the add button's label and whether it may
   * be pressed, and what to say once added. By default the button imports the tools the test
   * found, and the dialog links to them.
   */
  add?: { label: (result: T) => string; allowed: (result: T) => boolean; done: (answer: unknown) => DoneView };
}

/**
 * The dialog that adds a source by connecting to it (an MCP server, an A2A agent): fill the form,
 * test the connection (which lists the tools an import would register), then import, all or
 * nothing. Any change after a test makes it stale. Each kind of source brings its fields and its
 * view of the test's result.
 */
export function ConnectSourceDialog<F, T extends object>(props: ConnectSourceDialogProps<F, T>) {
  const { path, empty, text } = props;
  const dialog = useRef<HTMLDialogElement>(null);
  const router = useRouter();
  const id = useId();
  const [form, setForm] = useState<F>(empty);
  const [step, setStep] = useState<Step<T>>({ kind: "edit" });
  const [error, setError] = useState<unknown>();

  const update = (patch: Partial<F>) => {
    setForm((current) => ({ ...current, ...patch }));
    setStep((current) => (current.kind === "tested" ? { kind: "edit" } : current));
    setError(undefined);
  };

  const open = () => {
    setForm(empty);
    setStep({ kind: "edit" });
    setError(undefined);
    dialog.current?.showModal();
  };

  const test = async () => {
    setStep({ kind: "testing" });
    setError(undefined);
    try {
      setStep({ kind: "tested", result: await requestJson<T>(`${path}/test`, { method: "POST", body: props.body(form) }) });
    } catch (e) {
      setError(e);
      setStep({ kind: "edit" });
    }
  };

  const importNow = async (tested: T) => {
    setStep({ kind: "importing", result: tested });
    setError(undefined);
    try {
      const answer = await requestJson<SourceImportAnswer>(path, { method: "POST", body: props.body(form) });
      setStep({ kind: "done", done: props.add ? props.add.done(answer) : importedView(answer) });
      router.refresh();
    } catch (e) {
      setError(e);
      setStep({ kind: "tested", result: tested });
    }
  };

  const problem = props.problem(form);
  const locked = step.kind === "testing" || step.kind === "importing";
  const field = (name: keyof F & string) => ({
    id: `${id}-${name}`,
    value: String(form[name] ?? ""),
    onChange: (e: { target: { value: string } }) => update({ [name]: e.target.value } as Partial<F>),
  });

  return (
    <>
      <button
        type="button"
        className="rounded-md bg-indigo-700 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-800"
        onClick={open}
      >
        {text.button}
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={`${id}-title`}
        className="m-auto w-full max-w-3xl rounded-lg p-0 shadow-xl backdrop:bg-slate-900/40"
      >
        <div className="max-h-[90vh] overflow-y-auto p-6">
          <div className="flex items-start justify-between gap-4">
            <h2 id={`${id}-title`} className="text-lg font-semibold">
              {text.title}
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
              <p className="text-sm font-medium text-emerald-800">{step.done.message}</p>
              <Warnings warnings={step.done.warnings} />
              <p className="text-sm">
                <Link href={step.done.href} className="text-indigo-700 underline">
                  {step.done.link}
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
              <fieldset disabled={locked} className="space-y-5">
                {props.fields({ form, update, field, id, admin: props.admin })}
              </fieldset>

              {problem && props.started(form) ? (
                <p role="alert" className="text-sm text-red-700">
                  {problem}
                </p>
              ) : null}
              {error ? (
                <ErrorBox
                  error={error}
                  title={
                    step.kind === "tested" || step.kind === "importing" ? "The import failed; nothing was registered" : text.testFailed
                  }
                />
              ) : null}

              {step.kind === "tested" || step.kind === "importing" ? props.result(step.result) : null}
              {step.kind === "testing" ? (
                <p role="status" className="text-sm">
                  {text.testing}
                </p>
              ) : step.kind === "importing" ? (
                <p role="status" className="text-sm">
                  {text.importing(step.result)}
                </p>
              ) : null}

              <div className="flex gap-2">
                {step.kind === "tested" || step.kind === "importing" ? (
                  <>
                    <button
                      type="submit"
                      disabled={locked || !(props.add?.allowed ?? hasTools)(step.result)}
                      className="rounded-md bg-indigo-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-50"
                    >
                      {(props.add?.label ?? importLabel)(step.result)}
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
                    {text.test}
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

/** How many tools a test found (none for a source that brings no tools). */
function toolCount(result: object): number {
  const tools = (result as { tools?: unknown }).tools;
  return Array.isArray(tools) ? tools.length : 0;
}

function hasTools(result: object): boolean {
  return toolCount(result) > 0;
}

function importLabel(result: object): string {
  const count = toolCount(result);
  return `Import ${count} ${count === 1 ? "tool" : "tools"}`;
}

function importedView(answer: SourceImportAnswer): DoneView {
  const count = answer.tools.length;
  return {
    message: `Imported ${count} ${count === 1 ? "tool" : "tools"} from ${answer.source.name}.`,
    href: `/tools?source=${encodeURIComponent(answer.source.id)}`,
    link: "See its tools",
    warnings: answer.warnings,
  };
}
