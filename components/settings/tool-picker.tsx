"use client";

import { useState } from "react";

/** A tool a selection may name: a registry tool served over AG-UI. */
export interface PickableTool {
  name: string;
  description: string;
}

/**
 * The state of a tool selection: every tool served over AG-UI (`all`), or the ones ticked.
 * `selection()` is what the API takes: null for every tool, else the ticked names in list order.
 */
export function useToolSelection(stored: readonly string[] | null, tools: readonly PickableTool[]) {
  const [all, setAll] = useState(stored === null);
  const [chosen, setChosen] = useState(() => new Set(stored ?? tools.map((t) => t.name)));
  const toggle = (name: string, on: boolean) =>
    setChosen((before) => {
      const next = new Set(before);
      if (on) next.add(name);
      else next.delete(name);
      return next;
    });
  const selection = (): string[] | null => (all ? null : tools.map((t) => t.name).filter((name) => chosen.has(name)));
  return { all, setAll, chosen, toggle, selection };
}

/** The "Tools" fieldset of an agent's form: every tool, or a checklist named `listLabel`. */
export function ToolPicker({
  id,
  tools,
  state,
  disabled,
  listLabel,
}: {
  id: string;
  tools: readonly PickableTool[];
  state: ReturnType<typeof useToolSelection>;
  disabled: boolean;
  listLabel: string;
}) {
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium">Tools</legend>
      <div className="flex gap-4 text-sm">
        <label className="flex items-center gap-1.5">
          <input type="radio" name={`${id}-tools`} checked={state.all} disabled={disabled} onChange={() => state.setAll(true)} />
          Every tool served over AG-UI
        </label>
        <label className="flex items-center gap-1.5">
          <input type="radio" name={`${id}-tools`} checked={!state.all} disabled={disabled} onChange={() => state.setAll(false)} />
          Only the tools chosen here
        </label>
      </div>
      {!state.all ? (
        <ul className="max-h-72 space-y-1 overflow-auto rounded-md border border-slate-200 p-2" aria-label={listLabel}>
          {tools.map((tool) => (
            <li key={tool.name}>
              <label className="flex items-start gap-2 text-sm">
                <input
                  type="checkbox"
                  className="mt-1"
                  checked={state.chosen.has(tool.name)}
                  disabled={disabled}
                  onChange={(e) => state.toggle(tool.name, e.target.checked)}
                />
                <span>
                  <code className="font-mono">{tool.name}</code> <span className="text-slate-500">{tool.description}</span>
                </span>
              </label>
            </li>
          ))}
        </ul>
      ) : null}
    </fieldset>
  );
}
