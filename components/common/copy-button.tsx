"use client";

import { useState } from "react";

/** A Copy button for `text`, with a status line saying whether the clipboard took it. `what` names it for screen readers. */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <div className="flex items-center gap-3">
      <button
        type="button"
        className="rounded-md bg-slate-800 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-900"
        onClick={() => {
          navigator.clipboard.writeText(text).then(
            () => setCopy("copied"),
            () => setCopy("failed"),
          );
        }}
      >
        {copy === "copied" ? "Copied" : "Copy"}
        <span className="sr-only"> {what}</span>
      </button>
      <span role="status" className="text-xs text-slate-600">
        {copy === "copied"
          ? "Copied to the clipboard"
          : copy === "failed"
            ? "The browser refused the clipboard; select the text and copy it"
            : ""}
      </span>
    </div>
  );
}
