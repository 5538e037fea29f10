"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useRef, useState } from "react";
import type { OpenApiPreview } from "@/lib/integrations/openapi/import-openapi";
import { ErrorBox } from "../common/error-box";
import { requestJson } from "../common/request-json";

type Origin = "url" | "file" | "paste";
type AuthKind = "none" | "bearer" | "header" | "query";

interface Form {
  origin: Origin;
  url: string;
  file?: { name: string; text: string };
  pasted: string;
  name: string;
  prefix: string;
  baseUrl: string;
  allowPrivate: boolean;
  tags: string;
  paths: string;
  operationIds: string;
  authKind: AuthKind;
  authName: string;
  secret: string;
}

const EMPTY: Form = { origin: "url", url: "", pasted: "", name: "", prefix: "", baseUrl: "", allowPrivate: false, tags: "", paths: "", operationIds: "", authKind: "none", authName: "", secret: "" };

/** Preview tables past this many rows show a count instead: the import still takes every operation. */
const PREVIEW_ROWS = 500;

type Step = { kind: "edit" } | { kind: "previewing" } | { kind: "preview"; preview: OpenApiPreview } | { kind: "importing"; preview: OpenApiPreview } | { kind: "done"; sourceId: string; name: string; tools: number; warnings: string[] };

/**
 * The OpenAPI import dialog: a document from a URL, an uploaded file (read in the browser) or
 * pasted JSON or YAML; options and a credential; a preview of the operations, the tools they become
 * and the warnings; then the import, all or nothing.
 */
export function ImportOpenApiDialog() {
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
      const result = await requestJson<{ source: { id: string; name: string }; tools: unknown[]; warnings: string[] }>("/api/sources/openapi", { method: "POST", body: requestBody(form, true) });
      setStep({ kind: "done", sourceId: result.source.id, name: result.source.name, tools: result.tools.length, warnings: result.warnings });
      router.refresh();
    } catch (e) {
      setError(e);
      setStep({ kind: "preview", preview: previewed });
    }
  };

  const documentReady = form.origin === "url" ? form.url.trim() !== "" : form.origin === "file" ? form.file !== undefined : form.pasted.trim() !== "";
  const locked = step.kind === "previewing" || step.kind === "importing";
  const input = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm disabled:bg-slate-100";
  const label = "block text-sm font-medium";

  return (
    <>
      <button type="button" className="rounded-md bg-indigo-700 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-800" onClick={open}>
        Import OpenAPI
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-title`} className="m-auto w-full max-w-3xl rounded-lg p-0 shadow-xl backdrop:bg-slate-900/40">
        <div className="max-h-[90vh] overflow-y-auto p-6">
          <div className="flex items-start justify-between gap-4">
            <h2 id={`${id}-title`} className="text-lg font-semibold">
              Import an OpenAPI document
            </h2>
            <button type="button" className="rounded-md border border-slate-300 px-2 py-1 text-sm hover:bg-slate-100" onClick={() => dialog.current?.close()}>
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
              <fieldset disabled={locked} className="space-y-3">
                <legend className="text-sm font-semibold">Document</legend>
                <div role="radiogroup" aria-label="Where the document comes from" className="flex flex-wrap gap-4 text-sm">
                  {(
                    [
                      ["url", "From a URL"],
                      ["file", "Upload a file"],
                      ["paste", "Paste JSON or YAML"],
                    ] as const
                  ).map(([value, text]) => (
                    <label key={value} className="flex items-center gap-1.5">
                      <input type="radio" name={`${id}-origin`} value={value} checked={form.origin === value} onChange={() => update({ origin: value })} />
                      {text}
                    </label>
                  ))}
                </div>
                {form.origin === "url" ? (
                  <div>
                    <label htmlFor={`${id}-url`} className={label}>
                      Document URL
                    </label>
                    <input id={`${id}-url`} type="url" placeholder="https://api.example.com/openapi.json" className={input} value={form.url} onChange={(e) => update({ url: e.target.value })} />
                  </div>
                ) : form.origin === "file" ? (
                  <div>
                    <label htmlFor={`${id}-file`} className={label}>
                      OpenAPI file (JSON or YAML)
                    </label>
                    <input
                      id={`${id}-file`}
                      type="file"
                      accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml"
                      className="mt-1 block text-sm"
                      onChange={async (e) => {
                        const file = e.target.files?.[0];
                        update({ file: file ? { name: file.name, text: await file.text() } : undefined });
                      }}
                    />
                    {form.file ? (
                      <p className="mt-1 text-xs text-slate-600">
                        Read {form.file.name} ({Math.ceil(form.file.text.length / 1024)} KB).
                      </p>
                    ) : null}
                  </div>
                ) : (
                  <div>
                    <label htmlFor={`${id}-text`} className={label}>
                      Document (JSON or YAML)
                    </label>
                    <textarea id={`${id}-text`} rows={8} spellCheck={false} className={`${input} font-mono text-xs`} value={form.pasted} onChange={(e) => update({ pasted: e.target.value })} />
                  </div>
                )}
                <div>
                  <label htmlFor={`${id}-name`} className={label}>
                    Source name <span className="font-normal text-slate-500">(optional; the document’s title otherwise)</span>
                  </label>
                  <input id={`${id}-name`} className={input} value={form.name} onChange={(e) => update({ name: e.target.value })} />
                </div>
              </fieldset>

              <fieldset disabled={locked} className="space-y-3">
                <legend className="text-sm font-semibold">Options</legend>
                <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
                  <div>
                    <label htmlFor={`${id}-prefix`} className={label}>
                      Name prefix
                    </label>
                    <input id={`${id}-prefix`} placeholder="petstore_" aria-describedby={`${id}-prefix-hint`} className={input} value={form.prefix} onChange={(e) => update({ prefix: e.target.value })} />
                    <p id={`${id}-prefix-hint`} className="mt-1 text-xs text-slate-500">
                      Put before every tool name, to keep names unique.
                    </p>
                  </div>
                  <div>
                    <label htmlFor={`${id}-base`} className={label}>
                      Base URL
                    </label>
                    <input id={`${id}-base`} type="url" placeholder="The document’s servers" aria-describedby={`${id}-base-hint`} className={input} value={form.baseUrl} onChange={(e) => update({ baseUrl: e.target.value })} />
                    <p id={`${id}-base-hint`} className="mt-1 text-xs text-slate-500">
                      Call this server instead (http or https).
                    </p>
                  </div>
                </div>
                <label className="flex items-center gap-2 text-sm">
                  <input type="checkbox" checked={form.allowPrivate} onChange={(e) => update({ allowPrivate: e.target.checked })} />
                  Allow private addresses
                  <span className="text-xs text-slate-500">(loopback and private networks: only for APIs you trust)</span>
                </label>
                <fieldset className="rounded-md border border-slate-200 p-3">
                  <legend className="px-1 text-sm font-medium">Operations filter</legend>
                  <p className="text-xs text-slate-500">Comma separated; leave empty to import every operation. Each list given narrows the set.</p>
                  <div className="mt-2 grid grid-cols-1 gap-3 sm:grid-cols-3">
                    <div>
                      <label htmlFor={`${id}-tags`} className={label}>
                        Tags
                      </label>
                      <input id={`${id}-tags`} placeholder="pet, store" className={input} value={form.tags} onChange={(e) => update({ tags: e.target.value })} />
                    </div>
                    <div>
                      <label htmlFor={`${id}-paths`} className={label}>
                        Paths
                      </label>
                      <input id={`${id}-paths`} placeholder="/pet/*" className={input} value={form.paths} onChange={(e) => update({ paths: e.target.value })} />
                    </div>
                    <div>
                      <label htmlFor={`${id}-ops`} className={label}>
                        Operation IDs
                      </label>
                      <input id={`${id}-ops`} placeholder="getPetById" className={input} value={form.operationIds} onChange={(e) => update({ operationIds: e.target.value })} />
                    </div>
                  </div>
                </fieldset>
              </fieldset>

              <fieldset disabled={locked} className="space-y-3">
                <legend className="text-sm font-semibold">Authentication</legend>
                <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
                  <div>
                    <label htmlFor={`${id}-auth`} className={label}>
                      Credential
                    </label>
                    <select id={`${id}-auth`} className={input} value={form.authKind} onChange={(e) => update({ authKind: e.target.value as AuthKind })}>
                      <option value="none">None</option>
                      <option value="bearer">Bearer token</option>
                      <option value="header">API key in a header</option>
                      <option value="query">API key in the query</option>
                    </select>
                  </div>
                  {form.authKind === "header" || form.authKind === "query" ? (
                    <div>
                      <label htmlFor={`${id}-auth-name`} className={label}>
                        {form.authKind === "header" ? "Header name" : "Query parameter name"}
                      </label>
                      <input id={`${id}-auth-name`} required className={input} placeholder={form.authKind === "header" ? "X-API-Key" : "api_key"} value={form.authName} onChange={(e) => update({ authName: e.target.value })} />
                    </div>
                  ) : null}
                  {form.authKind !== "none" ? (
                    <div>
                      <label htmlFor={`${id}-secret`} className={label}>
                        Secret
                      </label>
                      <input id={`${id}-secret`} type="password" autoComplete="off" className={input} value={form.secret} aria-describedby={`${id}-secret-hint`} onChange={(e) => update({ secret: e.target.value })} />
                      <p id={`${id}-secret-hint`} className="mt-1 text-xs text-slate-500">
                        Stored for the calls; never shown again.
                      </p>
                    </div>
                  ) : null}
                </div>
              </fieldset>

              {error ? <ErrorBox error={error} title={step.kind === "preview" || step.kind === "importing" ? "The import failed; nothing was registered" : "The document cannot be imported"} /> : null}

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
                    <button type="submit" disabled={locked || step.preview.operations.length === 0 || (form.authKind !== "none" && !form.secret)} className="rounded-md bg-indigo-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-50">
                      Import {step.preview.operations.length} {step.preview.operations.length === 1 ? "tool" : "tools"}
                    </button>
                    <button type="button" disabled={locked} className="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100 disabled:opacity-50" onClick={() => setStep({ kind: "edit" })}>
                      Back
                    </button>
                  </>
                ) : (
                  <button type="submit" disabled={!documentReady || locked} className="rounded-md bg-indigo-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-800 disabled:opacity-50">
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

function PreviewView({ preview }: { preview: OpenApiPreview }) {
  const shown = preview.operations.slice(0, PREVIEW_ROWS);
  return (
    <section aria-label="Preview" className="space-y-3 rounded-md border border-slate-200 p-3">
      <h3 className="text-sm font-semibold">
        {preview.title} {preview.version} <span className="font-normal text-slate-500">(OpenAPI {preview.openapi})</span>
      </h3>
      <p className="text-sm text-slate-700">
        {preview.operations.length} {preview.operations.length === 1 ? "operation becomes a tool" : "operations become tools"}, calling {preview.baseUrls.filter(Boolean).join(", ") || "no absolute server URL"}.
      </p>
      <Warnings warnings={preview.warnings} />
      <div className="max-h-72 overflow-auto">
        <table className="w-full text-left text-xs">
          <caption className="sr-only">Operations and the tools they become</caption>
          <thead className="sticky top-0 bg-white text-slate-500">
            <tr>
              <th scope="col" className="py-1 pr-2">Operation</th>
              <th scope="col" className="py-1 pr-2">Tool name</th>
              <th scope="col" className="py-1 pr-2">Effect</th>
              <th scope="col" className="py-1">Approval</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((op) => (
              <tr key={`${op.method} ${op.path}`} className="border-t border-slate-100">
                <td className="py-1 pr-2 font-mono">
                  {op.method.toUpperCase()} {op.path}
                </td>
                <td className="py-1 pr-2 font-mono">{op.toolName}</td>
                <td className="py-1 pr-2">{op.effects}</td>
                <td className="py-1">{op.confirm ? "asks" : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {preview.operations.length > shown.length ? <p className="mt-1 text-xs text-slate-500">and {preview.operations.length - shown.length} more operations</p> : null}
      </div>
    </section>
  );
}

function Warnings({ warnings }: { warnings: string[] }) {
  if (!warnings.length) return null;
  return (
    <div className="rounded-md bg-amber-50 p-2 text-xs text-amber-900">
      <p className="font-medium">
        {warnings.length} {warnings.length === 1 ? "warning" : "warnings"}
      </p>
      <ul aria-label="Warnings" className="mt-1 list-disc space-y-0.5 pl-5">
        {warnings.map((warning, i) => (
          <li key={i}>{warning}</li>
        ))}
      </ul>
    </div>
  );
}

const list = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** The body of a preview or an import; the secret goes only with the import. */
function requestBody(form: Form, withSecret: boolean) {
  const operations = { tags: list(form.tags), paths: list(form.paths), operationIds: list(form.operationIds) };
  const filter = Object.fromEntries(Object.entries(operations).filter(([, v]) => v.length));
  const auth = form.authKind === "none" ? undefined : { kind: form.authKind, ...(form.authKind !== "bearer" && { name: form.authName.trim() }), ...(withSecret && { secret: form.secret }) };
  const document = form.origin === "url" ? { url: form.url.trim() } : form.origin === "file" ? { text: form.file?.text ?? "", filename: form.file?.name } : { text: form.pasted };
  return {
    ...document,
    ...(withSecret && form.name.trim() && { name: form.name.trim() }),
    options: {
      ...(Object.keys(filter).length && { operations: filter }),
      ...(form.prefix.trim() && { prefix: form.prefix.trim() }),
      ...(form.baseUrl.trim() && { baseUrl: form.baseUrl.trim() }),
      ...(form.allowPrivate && { allowPrivate: true }),
      ...(auth && { auth }),
    },
  };
}
