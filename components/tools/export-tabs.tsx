"use client";

import { useId, useState } from "react";
import { CopyButton } from "../common/copy-button";
import { TabList } from "../common/tab-list";
import type { ToolExport } from "@/lib/api/contracts";

/**
 * The tool's definition for each model API and protocol, one tab each (arrow keys move between
 * tabs), with the exact JSON and a button that copies that same text.
 */
export function ExportTabs({ exports }: { exports: ToolExport[] }) {
  const [selected, setSelected] = useState(exports[0]?.format ?? "");
  const panelId = useId();
  const current = exports.find((e) => e.format === selected) ?? exports[0]!;

  return (
    <div>
      <TabList
        label="Export formats"
        variant="folder"
        panelId={panelId}
        selected={current.format}
        onSelect={setSelected}
        tabs={exports.map((entry) => ({ key: entry.format, label: entry.label, className: entry.ok ? "" : "italic" }))}
      />
      <div
        role="tabpanel"
        id={panelId}
        aria-labelledby={`${panelId}-tab-${current.format}`}
        tabIndex={0}
        className="rounded-b-md border border-t-0 border-slate-200 bg-white p-3"
      >
        <ExportPanel key={current.format} entry={current} />
      </div>
    </div>
  );
}

function ExportPanel({ entry }: { entry: ToolExport }) {
  if (!entry.ok) {
    return (
      <p className="text-sm text-slate-700">
        Not exported to {entry.target}: {entry.refused} Add “{entry.target}” to the tool’s targets in its policy to export it.
      </p>
    );
  }
  const text = JSON.stringify(entry.output, null, 2);
  return (
    <div className="space-y-2">
      <CopyButton text={text} what={`${entry.label} JSON`} />
      {entry.warnings.length ? (
        <ul aria-label="Export warnings" className="list-disc space-y-0.5 rounded-md bg-amber-50 py-2 pl-6 pr-2 text-xs text-amber-900">
          {entry.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      ) : null}
      <pre aria-label={`${entry.label} JSON`} className="max-h-[32rem] overflow-auto rounded-md bg-slate-50 p-3 font-mono text-xs">
        {text}
      </pre>
    </div>
  );
}
