"use client";

import { useId, useState } from "react";
import type { CreatedEmbedToken } from "@/lib/api/contracts";
import { CopyButton } from "../common/copy-button";
import { LocalTime } from "../common/local-time";
import { requestJson } from "../common/request-json";
import { useSubmit } from "../common/use-submit";
import { widgetSnippet } from "./widget-snippet";

const LIFETIMES: ReadonlyArray<{ seconds: number; label: string }> = [
  { seconds: 3600, label: "1 hour" },
  { seconds: 8 * 3600, label: "8 hours" },
  { seconds: 24 * 3600, label: "24 hours" },
];

/**
 * The Widget tab: mint an embed token for the agent (scope agui, this agent only, short-lived,
 * usable from the origin given) and copy the <script> and <agui-chat> tags filled in with it.
 */
export function WidgetPanel({ agent, url, canMint }: { agent: string; url: string; canMint: boolean }) {
  const [origin, setOrigin] = useState("");
  const [lifetime, setLifetime] = useState(LIFETIMES[0]!.seconds);
  const [minted, setMinted] = useState<CreatedEmbedToken>();
  const ids = useId();
  const snippet = widgetSnippet({ url, agent, token: minted?.agent === agent ? minted.token : undefined });

  const {
    busy,
    error,
    submit: mint,
  } = useSubmit(async () => {
    const origins = origin.trim() ? [origin.trim()] : undefined;
    setMinted(
      await requestJson<CreatedEmbedToken>("/api/tokens/embed", { method: "POST", body: { agent, origins, ttlSeconds: lifetime } }),
    );
  });

  return (
    <div className="space-y-3">
      {canMint ? (
        <form onSubmit={mint} aria-label="Mint an embed token" className="flex flex-wrap items-end gap-4">
          <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
            Your page’s origin
            <input
              className="w-72 rounded-md border border-slate-300 px-2 py-1.5 text-sm font-normal"
              value={origin}
              onChange={(e) => setOrigin(e.target.value)}
              placeholder="https://shop.example.com"
              aria-describedby={`${ids}-help`}
            />
          </label>
          <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
            Lifetime
            <select
              className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm font-normal"
              value={lifetime}
              onChange={(e) => setLifetime(Number(e.target.value))}
            >
              {LIFETIMES.map((l) => (
                <option key={l.seconds} value={l.seconds}>
                  {l.label}
                </option>
              ))}
            </select>
          </label>
          <button
            type="submit"
            disabled={busy}
            className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
          >
            {busy ? "Minting…" : "Mint an embed token"}
          </button>
        </form>
      ) : (
        <p role="note" className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          Minting an embed token needs the <code>admin</code> scope.
        </p>
      )}
      <p id={`${ids}-help`} className="text-xs text-slate-500">
        An embed token runs only {agent}, only with the <code>agui</code> scope, and expires; pages of the origin given (or of one in
        CORS_ORIGINS) may use it. Never put an operator’s token in a page: anyone can read it there.
      </p>
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
      {minted && minted.agent === agent ? (
        <p role="status" className="text-sm text-emerald-800">
          Embed token {minted.name} minted; it expires at <LocalTime at={minted.expiresAt} />. It is in the snippet below and will not be
          shown again.
        </p>
      ) : null}
      <pre data-testid="snippet-widget" className="overflow-auto rounded-md bg-slate-900 p-4 text-xs leading-relaxed text-slate-100">
        <code>{snippet}</code>
      </pre>
      <CopyButton text={snippet} what="the widget snippet" />
    </div>
  );
}
