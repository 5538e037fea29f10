"use client";

import { memo } from "react";
import type { ToolCallView } from "@/lib/client";
import { ToolValueView } from "../common/content-blocks-view";
import { JsonView } from "../common/json-view";
import { StatusBadge } from "./status-badge";

/**
 * One tool call on the timeline: name, arguments (live while streaming), status, duration, result or
 * error. A result made of MCP content blocks (an imported tool's image, say) is shown as them, with
 * its JSON a click away.
 */
export const ToolCallEntry = memo(function ToolCallEntry({ call }: { call: ToolCallView }) {
  return (
    <article
      className="rounded-lg border border-slate-200 bg-white p-3 text-sm"
      aria-label={`Tool call ${call.name}`}
      data-tool-call-id={call.id}
      data-status={call.status}
    >
      <header className="flex flex-wrap items-center gap-2">
        <span aria-hidden className="text-slate-400">
          ⚙
        </span>
        <h3 className="font-mono font-semibold">{call.name}</h3>
        <StatusBadge status={call.status} />
        {call.durationMs !== undefined ? <span className="text-xs text-slate-500">{formatDuration(call.durationMs)}</span> : null}
      </header>
      <div className="mt-2">
        <h4 className="text-xs font-medium text-slate-500">Arguments</h4>
        {call.args !== undefined ? (
          <JsonView value={call.args} label={`Arguments of ${call.name}`} />
        ) : (
          <pre
            className="mt-1 overflow-x-auto rounded-md bg-slate-50 p-2 font-mono text-xs"
            aria-label={`Arguments of ${call.name} (streaming)`}
          >
            {call.argsText || " "}
          </pre>
        )}
      </div>
      {call.error ? (
        <p className="mt-2 rounded-md bg-red-50 p-2 text-xs text-red-800" role="status">
          <span className="font-semibold">{call.error.kind}</span>: {call.error.message}
        </p>
      ) : null}
      {call.result !== undefined ? (
        <details className="mt-2" open>
          <summary className="cursor-pointer text-xs font-medium text-slate-500">Result</summary>
          <ToolValueView value={call.result} tool={call.name} label={`Result of ${call.name}`} />
        </details>
      ) : null}
    </article>
  );
});

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
