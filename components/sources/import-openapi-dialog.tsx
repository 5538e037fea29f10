"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useRef, useState } from "react";
import type { OpenApiPreview, SourceImportAnswer } from "@/lib/api/contracts";
import { ErrorBox } from "../common/error-box";
import { requestJson } from "../common/request-json";
import { EMPTY, requestBody, type Form } from "./openapi-form";
import { AuthFields, DocumentFields, OptionsFields } from "./openapi-import-fields";
import { PreviewView, Warnings } from "./openapi-preview";

type Step =
  | { kind: "edit" }
  | { kind: "previewing" }
  | { kind: "preview"; preview: OpenApiPreview }
  | { kind: "importing"; preview: OpenApiPreview }
  | { kind: "done"; sourceId: string; name: string; tools: number; warnings: string[] };

/**
 * The OpenAPI import dialog: a document from a URL, an uploaded file (read in the browser) or
 * pasted JSON or YAML; options and a credential; a preview of the operations, the tools they become
 * and the warnings; then the import, all or nothing.
 */
export function ImportOpenApiDialog({ admin = false }: { admin?: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const router = useRouter();
  const id = useId();
  const [form, setForm] = useState<Form>(EMPTY);
  const [step, setStep] = useState<Step>({ kind: "edit" });
  const [error, setError] = useState<unknown>();

  const update = (patch: Partial<Form>) => {
    setForm((current) => ({ ...current, ...patch }));
    // Any change makes the preview stale: preview again before importing.
    setStep((current) => (current.kind === "preview" ? { kind: "edit" } : current));
    setError(undefined);
  };

  const open = () => {
    setForm(EMPTY);
    setStep({ kind: "edit" });
    setError(undefined);
    dialog.current?.showModal();
  };

  const preview = async () => {
    setStep({ kind: "previewing" });
    setError(undefined);
    try {
      const result = await requestJson<OpenApiPreview>("/api/sources/openapi/preview", { method: "POST", body: requestBody(form, false) });
      setStep({ kind: "preview", preview: result });
    } catch (e) {
      setError(e);
      setStep({ kind: "edit" });
    }
  };

  const importNow = async (previewed: OpenApiPreview) => {
    setStep({ kind: "importing", preview: previewed });
    setError(undefined);
    try {
      const result = await requestJson<SourceImportAnswer>("/api/sources/openapi", { method: "POST", body: requestBody(form, true) });
      setStep({
        kind: "done",
        sourceId: result.source.id,
        name: result.source.name,
        tools: result.tools.length,
        warnings: result.warnings,
      });
      router.refresh();
    } catch (e) {
      setError(e);
      setStep({ kind: "preview", preview: previewed });
    }
  };

  const documentReady =
    form.origin === "url" ? form.url.trim() !== "" : form.origin === "file" ? form.file !== undefined : form.pasted.trim() !== "";
  const locked = step.kind === "previewing" || step.kind === "importing";
  const fieldProps = { form, update, id, locked, admin };

  return (
    <>
      <button
        type="button"
        className="rounded-md bg-indigo-700 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-800"
        onClick={open}
      >
        Import OpenAPI
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={`${id}-title`}
        className="m-auto w-full max-w-3xl rounded-lg p-0 shadow-xl backdrop:bg-slate-900/40"
      >
        <div className="max-h-[90vh] overflow-y-auto p-6">
          <div className="flex items-start justify-between gap-4">
            <h2 id={`${id}-title`} className="text-lg font-semibold">
              Import an OpenAPI document
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
              onSubmit={(e) => {
                e.preventDefault();
                if (step.kind === "preview") void importNow(step.preview);
                else if (step.kind === "edit") void preview();
              }}
            >
              <DocumentFields {...fieldProps} />
              <OptionsFields {...fieldProps} />
              <AuthFields {...fieldProps} />

              {error ? (
                <ErrorBox
                  error={error}
                  title={
                    step.kind === "preview" || step.kind === "importing"
                      ? "The import failed; nothing was registered"
                      : "The document cannot be imported"
                  }
                />
              ) : null}

              {step.kind === "preview" || step.kind === "importing" ? <PreviewView preview={step.preview} /> : null}

              {step.kind === "importing" ? (
                <div role="status" className="space-y-1 text-sm">
                  <p>
                    Importing {step.preview.operations.length} operations from {step.preview.title}…
                  </p>
                  <progress aria-label="Import progress" className="w-full" />
                </div>
              ) : step.kind === "previewing" ? (
                <p role="status" className="text-sm">
                  Reading the document…
                </p>
              ) : null}

              <div className="flex gap-2">
                {step.kind === "preview" || step.kind === "importing" ? (
                  <>
                    <button
                      type="submit"
                      disabled={locked || step.preview.operations.length === 0 || (form.authKind !== "none" && !form.secret)}
                      className="rounded-md bg-indigo-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-50"
                    >
                      Import {step.preview.operations.length} {step.preview.operations.length === 1 ? "tool" : "tools"}
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
                    disabled={!documentReady || locked}
                    className="rounded-md bg-indigo-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-50"
                  >
                    Preview
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
