"use client";

import { useRef } from "react";

export interface Tab<K extends string> {
  key: K;
  label: string;
  /** Extra classes for this tab (e.g. a format that is refused). */
  className?: string;
}

/**
 * A WAI-ARIA tab list: the arrow keys, Home and End move between tabs, only the selected tab is in
 * the Tab order, and each tab controls `${panelId}` (the caller's role="tabpanel" element).
 */
export function TabList<K extends string>({
  label,
  tabs,
  selected,
  onSelect,
  panelId,
  variant = "underline",
}: {
  label: string;
  tabs: ReadonlyArray<Tab<K>>;
  selected: K;
  onSelect: (key: K) => void;
  panelId: string;
  variant?: "underline" | "pill" | "folder";
}) {
  const buttons = useRef(new Map<K, HTMLButtonElement>());
  const index = Math.max(
    0,
    tabs.findIndex((t) => t.key === selected),
  );
  const move = (to: number) => {
    const next = tabs[(to + tabs.length) % tabs.length]!;
    onSelect(next.key);
    buttons.current.get(next.key)?.focus();
  };
  const style = (active: boolean): string =>
    ({
      underline: `-mb-px border-b-2 px-3 py-2 text-sm font-medium ${active ? "border-indigo-600 text-indigo-700" : "border-transparent text-slate-600 hover:text-slate-900"}`,
      pill: `rounded px-3 py-1 text-sm ${active ? "bg-slate-800 text-white" : "border border-slate-300 hover:bg-slate-100"}`,
      folder: `-mb-px rounded-t-md border px-3 py-1.5 text-sm ${active ? "border-slate-200 border-b-white bg-white font-medium text-slate-900" : "border-transparent text-slate-600 hover:text-slate-900"}`,
    })[variant];
  return (
    <div
      role="tablist"
      aria-label={label}
      className={`flex flex-wrap gap-1 ${variant === "pill" ? "" : "border-b border-slate-200"}`}
      onKeyDown={(e) => {
        const moves: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 };
        if (!(e.key in moves)) return;
        e.preventDefault();
        move(moves[e.key]!);
      }}
    >
      {tabs.map((tab) => (
        <button
          key={tab.key}
          ref={(el) => {
            if (el) buttons.current.set(tab.key, el);
            else buttons.current.delete(tab.key);
          }}
          type="button"
          role="tab"
          id={`${panelId}-tab-${tab.key}`}
          aria-selected={tab.key === selected}
          aria-controls={panelId}
          tabIndex={tab.key === selected ? 0 : -1}
          className={`${style(tab.key === selected)} ${tab.className ?? ""}`}
          onClick={() => onSelect(tab.key)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}
