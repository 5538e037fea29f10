"use client";

import Link from "next/link";
import { useId, useState } from "react";
import { SCOPE_ABOUT, TOKEN_NAME_PATTERN, TOKEN_SCOPES, type CreatedToken, type TokenScope, type TokenView } from "@/lib/api/contracts";
import { ErrorBox } from "../common/error-box";
import { LocalTime } from "../common/local-time";
import { NewTokenNotice } from "../common/new-token-notice";
import { requestJson } from "../common/request-json";
import { useSubmit } from "../common/use-submit";
import { hint, input, label } from "../sources/form-styles";
import { button, danger, secondary } from "./buttons";

/** Where a new token of each client kind goes next, said under its secret. */
const NEXT_STEP: Partial<Record<TokenScope, { text: string; href: string; link: string }>> = {
  mcp: { text: "An MCP client sends it as its Authorization header:", href: "/sources#mcp-client", link: "the MCP client configuration" },
  a2a: { text: "An A2A client sends it as a bearer token:", href: "/sources#a2a-client", link: "the A2A client snippet" },
  agui: { text: "An app posts runs with it:", href: "/embed", link: "the Embed page's snippets" },
};

/**
 * The Settings page's API tokens (admins): make a token with the scopes a client needs (its secret
 * shown once, with where it goes next), see every token with its last use, and revoke one. What
 * `npm run token` does on the console's machine, for an operator who is not on it.
 */
export function ApiTokens({
  initial,
  now,
  suggested,
  signedInWith,
}: {
  initial: TokenView[];
  /** When the list was read (ms): tokens whose embed expiry is past then are listed as ended. */
  now: number;
  suggested?: TokenScope;
  /** The name of the token the reader signed in with, if they did. */
  signedInWith?: string;
}) {
  const [tokens, setTokens] = useState(initial);
  const [created, setCreated] = useState<CreatedToken>();
  const ended = (t: TokenView) => t.revokedAt !== null || (t.expiresAt !== null && t.expiresAt <= now);
  const active = tokens.filter((t) => !ended(t));
  const past = tokens.filter(ended);
  const replace = (token: TokenView) => setTokens((list) => list.map((t) => (t.id === token.id ? token : t)));

  return (
    <div className="space-y-4">
      <NewTokenForm
        suggested={suggested}
        taken={active.map((t) => t.name)}
        onCreated={(token) => {
          setCreated(token);
          const { token: _secret, ...view } = token;
          setTokens((list) => [view, ...list]);
        }}
      />
      {created ? <CreatedNotice token={created} /> : null}
      {active.length ? (
        <TokenTable label="Active tokens" tokens={active} onRevoked={replace} signedInWith={signedInWith} />
      ) : (
        <p className="rounded-md border border-dashed border-slate-300 p-4 text-sm text-slate-600">No active token.</p>
      )}
      {past.length ? (
        <details className="text-sm">
          <summary className="cursor-pointer text-slate-600">Revoked and expired ({past.length})</summary>
          <div className="mt-2">
            <TokenTable label="Revoked and expired tokens" tokens={past} />
          </div>
        </details>
      ) : null}
    </div>
  );
}

function NewTokenForm({
  suggested,
  taken,
  onCreated,
}: {
  suggested?: TokenScope;
  taken: string[];
  onCreated: (token: CreatedToken) => void;
}) {
  const ids = useId();
  const [name, setName] = useState(suggested ? `${suggested}-client` : "");
  const [scopes, setScopes] = useState<TokenScope[]>(suggested ? [suggested] : []);
  const { busy, error, submit } = useSubmit(async () => {
    onCreated(await requestJson<CreatedToken>("/api/tokens", { method: "POST", body: { name: name.trim(), scopes } }));
    setName("");
    setScopes([]);
  });
  const toggle = (scope: TokenScope, on: boolean) =>
    setScopes((list) => (on ? TOKEN_SCOPES.filter((s) => s === scope || list.includes(s)) : list.filter((s) => s !== scope)));
  const nameTaken = taken.includes(name.trim());

  return (
    <form onSubmit={submit} aria-label="New token" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4">
      <h3 className="font-medium">New token</h3>
      <div>
        <label className={label} htmlFor={`${ids}-name`}>
          Name
        </label>
        <input
          id={`${ids}-name`}
          className={`${input} max-w-xs`}
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={64}
          pattern={TOKEN_NAME_PATTERN}
          placeholder="claude-desktop"
          aria-describedby={`${ids}-name-hint`}
        />
        <p id={`${ids}-name-hint`} className={hint}>
          {nameTaken
            ? "An active token has this name: revoke it first, or choose another."
            : "1 to 64 letters, digits, “.”, “_” or “-”. It names the client in the approvals inbox and the run records."}
        </p>
      </div>
      <fieldset>
        <legend className={label}>Scopes</legend>
        <div className="mt-1 grid gap-1 sm:grid-cols-2">
          {TOKEN_SCOPES.map((scope) => (
            <label key={scope} className="flex items-start gap-2 text-sm text-slate-700">
              <input type="checkbox" className="mt-1" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
              <span>
                <code className="font-mono">{scope}</code> <span className="text-slate-600">{SCOPE_ABOUT[scope]}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {error ? <ErrorBox error={error} title="The token was not created" /> : null}
      <button type="submit" className={button} disabled={busy || !scopes.length || nameTaken}>
        {busy ? "Creating…" : "Create the token"}
      </button>
      {!scopes.length ? <span className="ml-3 text-xs text-slate-500">Choose at least one scope.</span> : null}
    </form>
  );
}

function CreatedNotice({ token }: { token: CreatedToken }) {
  const steps = token.scopes.flatMap((scope) => NEXT_STEP[scope] ?? []);
  return (
    <NewTokenNotice token={token}>
      {steps.map((step) => (
        <p key={step.href}>
          {step.text} <code className="font-mono">Authorization: Bearer …</code>; see{" "}
          <Link href={step.href} className="text-indigo-700 underline">
            {step.link}
          </Link>
          .
        </p>
      ))}
    </NewTokenNotice>
  );
}

function TokenTable({
  label,
  tokens,
  onRevoked,
  signedInWith,
}: {
  label: string;
  tokens: TokenView[];
  onRevoked?: (token: TokenView) => void;
  signedInWith?: string;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table aria-label={label} className="w-full text-left text-sm">
        <thead className="bg-slate-50 text-xs tracking-wide text-slate-500 uppercase">
          <tr>
            <th className="px-3 py-2 font-medium">Name</th>
            <th className="px-3 py-2 font-medium">Scopes</th>
            <th className="px-3 py-2 font-medium">Created</th>
            <th className="px-3 py-2 font-medium">Last used</th>
            <th className="px-3 py-2 font-medium">{onRevoked ? "Ends" : "Ended"}</th>
            {onRevoked ? <th className="px-3 py-2" /> : null}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {tokens.map((token) => (
            <TokenRow key={token.id} token={token} onRevoked={onRevoked} yours={token.name === signedInWith} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TokenRow({ token, onRevoked, yours }: { token: TokenView; onRevoked?: (token: TokenView) => void; yours: boolean }) {
  const [confirming, setConfirming] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    const { revoked } = await requestJson<{ revoked: TokenView }>(`/api/tokens/${encodeURIComponent(token.id)}`, { method: "DELETE" });
    onRevoked?.(revoked);
  });
  const end = token.revokedAt ?? token.expiresAt;
  return (
    <tr data-testid={`token-${token.name}`}>
      <td className="px-3 py-2">
        <span className="font-medium">{token.name}</span>
        {yours ? <span className="ml-2 text-xs text-slate-500">(you)</span> : null}
        {token.agent ? <span className="block text-xs text-slate-500">embed token of {token.agent}</span> : null}
      </td>
      <td className="px-3 py-2 font-mono text-xs">{token.scopes.join(", ")}</td>
      <td className="px-3 py-2 whitespace-nowrap">
        <LocalTime at={token.createdAt} style="short" />
      </td>
      <td className="px-3 py-2 whitespace-nowrap">
        {token.lastUsedAt ? <LocalTime at={token.lastUsedAt} style="short" /> : <span className="text-slate-500">never</span>}
      </td>
      <td className="px-3 py-2 whitespace-nowrap">
        {end !== null ? (
          <>
            {token.revokedAt !== null ? "revoked " : onRevoked ? "" : "expired "}
            <LocalTime at={end} style="short" />
          </>
        ) : (
          <span className="text-slate-500">when revoked</span>
        )}
      </td>
      {onRevoked ? (
        <td className="px-3 py-2 text-right whitespace-nowrap">
          {error ? <ErrorBox error={error} title="Not revoked" /> : null}
          {confirming ? (
            <span className="inline-flex items-center gap-2">
              <span className="text-xs text-slate-600">
                {yours ? "You signed in with it: revoking it signs you out." : "Its clients are refused at once."}
              </span>
              <button type="button" className={danger} disabled={busy} onClick={() => void submit()}>
                {busy ? "Revoking…" : `Revoke ${token.name}`}
              </button>
              <button type="button" className={secondary} disabled={busy} onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </span>
          ) : (
            <button type="button" className={danger} onClick={() => setConfirming(true)}>
              Revoke…
            </button>
          )}
        </td>
      ) : null}
    </tr>
  );
}
