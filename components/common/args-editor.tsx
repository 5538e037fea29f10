"use client";

import { useMemo, useState } from "react";
import { schemaProblems } from "@/lib/client/schema-problems";
import { SchemaForm } from "./schema-form";

/**
 * Arguments for a tool: a form built from its input schema, or raw JSON, both checked against the
 * schema as you type. `onChange` receives the value and whether it is valid. With `showProblems`
 * false, what the schema finds wrong is not listed (a form nobody has typed in yet: its empty
 * required fields are not mistakes); JSON that does not parse always is.
 */
export function ArgsEditor({
  schema,
  value,
  onChange,
  label = "Arguments",
  showProblems = true,
}: {
  schema: Record<string, unknown>;
  value: unknown;
  onChange: (value: unknown, valid: boolean) => void;
  label?: string;
  showProblems?: boolean;
}) {
  const [mode, setMode] = useState<"form" | "json">("form");
  const [text, setText] = useState(() => JSON.stringify(value ?? {}, null, 2));
  const [parseError, setParseError] = useState<string>();
  const problems = useMemo(
    () => (parseError || !showProblems ? [] : schemaProblems(schema, value)),
    [schema, value, parseError, showProblems],
  );
  const update = (next: unknown) => onChange(next, schemaProblems(schema, next).length === 0);

  return (
    <div className="space-y-2">
      <div role="group" aria-label={`${label} editor mode`} className="flex gap-1 text-xs">
        {(["form", "json"] as const).map((m) => (
          <button
            key={m}
            type="button"
            aria-pressed={mode === m}
            className={`rounded px-2 py-1 ${mode === m ? "bg-slate-800 text-white" : "border border-slate-300 hover:bg-slate-100"}`}
            onClick={() => {
              if (m === "json") setText(JSON.stringify(value ?? {}, null, 2));
              setParseError(undefined);
              setMode(m);
            }}
          >
            {m === "form" ? "Form" : "Raw JSON"}
          </button>
        ))}
      </div>
      {mode === "form" ? (
        <SchemaForm schema={schema} value={value} onChange={update} />
      ) : (
        <div>
          <label className="sr-only" htmlFor={`${label}-json`}>
            {label} as JSON
          </label>
          <textarea
            id={`${label}-json`}
            aria-label={`${label} as JSON`}
            rows={8}
            spellCheck={false}
            className="w-full rounded-md border border-slate-300 px-2 py-1.5 font-mono text-xs"
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              try {
                const parsed = JSON.parse(e.target.value);
                setParseError(undefined);
                update(parsed);
              } catch (error) {
                setParseError(error instanceof Error ? error.message : "Not valid JSON");
                onChange(value, false);
              }
            }}
          />
        </div>
      )}
      {parseError || problems.length ? (
        <ul className="space-y-0.5 text-xs text-red-700" aria-live="polite">
          {parseError ? <li>JSON: {parseError}</li> : null}
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
