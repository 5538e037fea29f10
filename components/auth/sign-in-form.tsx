"use client";

import { useState, type FormEvent } from "react";
import { SESSION_PATH, type SessionView } from "@/lib/api/contracts";
import { requestJson } from "../common/request-json";

/** The token field of the sign-in page; on success the browser goes to `next` (a path of this console). */
export function SignInForm({ next }: { next: string }) {
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await requestJson<SessionView>(SESSION_PATH, { method: "POST", body: { token: token.trim() } });
      window.location.assign(next);
    } catch (failure) {
      setError((failure as Error).message);
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="mt-6 flex flex-col gap-3">
      <label className="text-sm font-medium text-slate-700" htmlFor="token">
        Token
      </label>
      <input
        id="token"
        type="password"
        autoComplete="current-password"
        value={token}
        onChange={(event) => setToken(event.target.value)}
        className="rounded-md border border-slate-300 px-3 py-2 font-mono text-sm"
        placeholder="aguic_…"
        required
      />
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
      <button
        type="submit"
        disabled={busy || !token.trim()}
        className="rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
      >
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
