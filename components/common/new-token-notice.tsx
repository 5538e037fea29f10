"use client";

import type { ReactNode } from "react";
import type { CreatedToken } from "@/lib/api/contracts";
import { CopyButton } from "./copy-button";

/** A token just created: its secret, shown this once with a Copy button, and what to do with it (`children`). */
export function NewTokenNotice({ token, children }: { token: CreatedToken; children?: ReactNode }) {
  return (
    <div
      role="status"
      data-testid="token-created"
      className="space-y-2 rounded-md border border-emerald-200 bg-emerald-50 p-3 text-sm text-emerald-900"
    >
      <p>
        Token <strong>{token.name}</strong> created ({token.scopes.join(", ")}). Copy it now: the console keeps only its hash and will not
        show it again.
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <code data-testid="new-token" className="rounded bg-white px-2 py-1 break-all">
          {token.token}
        </code>
        <CopyButton text={token.token} what="the new token" />
      </div>
      {children}
    </div>
  );
}
