"use client";

import { useState } from "react";
import { JsonView } from "../common/json-view";

/** A JSON Schema as a foldable tree or as the raw JSON, switched with two toggle buttons. */
export function SchemaView({ label, schema }: { label: string; schema: unknown }) {
  const [mode, setMode] = useState<"tree" | "raw">("tree");
  return (
    <div className="space-y-2">
      <div role="group" aria-label={`${label} view`} className="flex gap-1 text-xs">
        {(["tree", "raw"] as const).map((m) => (
          <button
            key={m}
            type="button"
            aria-pressed={mode === m}
            className={`rounded px-2 py-1 ${mode === m ? "bg-slate-800 text-white" : "border border-slate-300 hover:bg-slate-100"}`}
            onClick={() => setMode(m)}
          >
            {m === "tree" ? "Tree" : "Raw JSON"}
          </button>
        ))}
      </div>
      {mode === "tree" ? (
        <JsonView value={schema} label={label} openDepth={3} />
      ) : (
        <pre aria-label={`${label} as JSON`} className="max-h-96 overflow-auto rounded-md bg-slate-50 p-2 font-mono text-xs">
          {JSON.stringify(schema, null, 2)}
        </pre>
      )}
    </div>
  );
}
