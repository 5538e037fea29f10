"use client";

import type { AuthKind, Form } from "./openapi-form";
import { input, label } from "./form-styles";

/** The props every part of the import form takes: the form, how to change it, and the ids' prefix. */
export interface FieldsProps {
  form: Form;
  update: (patch: Partial<Form>) => void;
  id: string;
  /** While a preview or an import is under way, nothing can be changed. */
  locked: boolean;
  /** An admin may let this source reach private addresses. */
  admin?: boolean;
}

/** Where the document comes from (a URL, an uploaded file read in the browser, or pasted text) and the source's name. */
export function DocumentFields({ form, update, id, locked }: FieldsProps) {
  return (
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
            <input
              type="radio"
              name={`${id}-origin`}
              value={value}
              checked={form.origin === value}
              onChange={() => update({ origin: value })}
            />
            {text}
          </label>
        ))}
      </div>
      {form.origin === "url" ? (
        <div>
          <label htmlFor={`${id}-url`} className={label}>
            Document URL
          </label>
          <input
            id={`${id}-url`}
            type="url"
            placeholder="https://api.example.com/openapi.json"
            className={input}
            value={form.url}
            onChange={(e) => update({ url: e.target.value })}
          />
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
          <textarea
            id={`${id}-text`}
            rows={8}
            spellCheck={false}
            className={`${input} font-mono text-xs`}
            value={form.pasted}
            onChange={(e) => update({ pasted: e.target.value })}
          />
        </div>
      )}
      <div>
        <label htmlFor={`${id}-name`} className={label}>
          Source name <span className="font-normal text-slate-500">(optional; the document’s title otherwise)</span>
        </label>
        <input id={`${id}-name`} className={input} value={form.name} onChange={(e) => update({ name: e.target.value })} />
      </div>
    </fieldset>
  );
}

/** Name prefix, base URL, private addresses and the operations filter. */
export function OptionsFields({ form, update, id, locked, admin }: FieldsProps) {
  return (
    <fieldset disabled={locked} className="space-y-3">
      <legend className="text-sm font-semibold">Options</legend>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <div>
          <label htmlFor={`${id}-prefix`} className={label}>
            Name prefix
          </label>
          <input
            id={`${id}-prefix`}
            placeholder="petstore_"
            aria-describedby={`${id}-prefix-hint`}
            className={input}
            value={form.prefix}
            onChange={(e) => update({ prefix: e.target.value })}
          />
          <p id={`${id}-prefix-hint`} className="mt-1 text-xs text-slate-500">
            Put before every tool name, to keep names unique.
          </p>
        </div>
        <div>
          <label htmlFor={`${id}-base`} className={label}>
            Base URL
          </label>
          <input
            id={`${id}-base`}
            type="url"
            placeholder="The document’s servers"
            aria-describedby={`${id}-base-hint`}
            className={input}
            value={form.baseUrl}
            onChange={(e) => update({ baseUrl: e.target.value })}
          />
          <p id={`${id}-base-hint`} className="mt-1 text-xs text-slate-500">
            Call this server instead (http or https).
          </p>
        </div>
      </div>
      {admin ? (
        <div>
          <label htmlFor={`${id}-allow`} className={label}>
            Also allow (admin)
          </label>
          <input
            id={`${id}-allow`}
            placeholder="10.1.2.0/24, api.internal"
            aria-describedby={`${id}-allow-hint`}
            className={input}
            value={form.allow}
            onChange={(e) => update({ allow: e.target.value })}
            disabled={locked}
          />
          <p id={`${id}-allow-hint`} className="mt-1 text-xs text-slate-500">
            Private ranges, addresses or host names this source&apos;s document and calls may reach, on top of <code>OUTBOUND_ALLOW</code>.
            Kept with the source.
          </p>
        </div>
      ) : (
        <p className="text-xs text-slate-500">
          Documents and calls reach public addresses only. Loopback and private networks are reached only when the operator lists them in{" "}
          <code>OUTBOUND_ALLOW</code> or an admin allows them for the source.
        </p>
      )}
      <fieldset className="rounded-md border border-slate-200 p-3">
        <legend className="px-1 text-sm font-medium">Operations filter</legend>
        <p className="text-xs text-slate-500">Comma separated; leave empty to import every operation. Each list given narrows the set.</p>
        <div className="mt-2 grid grid-cols-1 gap-3 sm:grid-cols-3">
          <div>
            <label htmlFor={`${id}-tags`} className={label}>
              Tags
            </label>
            <input
              id={`${id}-tags`}
              placeholder="pet, store"
              className={input}
              value={form.tags}
              onChange={(e) => update({ tags: e.target.value })}
            />
          </div>
          <div>
            <label htmlFor={`${id}-paths`} className={label}>
              Paths
            </label>
            <input
              id={`${id}-paths`}
              placeholder="/pet/*"
              className={input}
              value={form.paths}
              onChange={(e) => update({ paths: e.target.value })}
            />
          </div>
          <div>
            <label htmlFor={`${id}-ops`} className={label}>
              Operation IDs
            </label>
            <input
              id={`${id}-ops`}
              placeholder="getPetById"
              className={input}
              value={form.operationIds}
              onChange={(e) => update({ operationIds: e.target.value })}
            />
          </div>
        </div>
      </fieldset>
    </fieldset>
  );
}

/** The credential every call of the source carries; the secret is sent with the import only. */
export function AuthFields({ form, update, id, locked }: FieldsProps) {
  return (
    <fieldset disabled={locked} className="space-y-3">
      <legend className="text-sm font-semibold">Authentication</legend>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <div>
          <label htmlFor={`${id}-auth`} className={label}>
            Credential
          </label>
          <select
            id={`${id}-auth`}
            className={input}
            value={form.authKind}
            onChange={(e) => update({ authKind: e.target.value as AuthKind })}
          >
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
            <input
              id={`${id}-auth-name`}
              required
              className={input}
              placeholder={form.authKind === "header" ? "X-API-Key" : "api_key"}
              value={form.authName}
              onChange={(e) => update({ authName: e.target.value })}
            />
          </div>
        ) : null}
        {form.authKind !== "none" ? (
          <div>
            <label htmlFor={`${id}-secret`} className={label}>
              Secret
            </label>
            <input
              id={`${id}-secret`}
              type="password"
              autoComplete="off"
              className={input}
              value={form.secret}
              aria-describedby={`${id}-secret-hint`}
              onChange={(e) => update({ secret: e.target.value })}
            />
            <p id={`${id}-secret-hint`} className="mt-1 text-xs text-slate-500">
              Stored for the calls; never shown again.
            </p>
          </div>
        ) : null}
      </div>
    </fieldset>
  );
}
