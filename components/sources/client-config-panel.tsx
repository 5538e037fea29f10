"use client";

import { useId, type ReactNode } from "react";
import { CopyButton } from "../common/copy-button";
import { TabList, type Tab } from "../common/tab-list";

/**
 * A section of the Sources page that tells another program how to use the console's tools: a title,
 * what to know (`children`), and text to copy in one of several forms (`tabs`), named `what`.
 */
export function ClientConfigPanel<K extends string>({
  id,
  title,
  tabsLabel,
  tabs,
  selected,
  onSelect,
  text,
  what,
  children,
}: {
  /** The section's anchor (other pages link to it). */
  id: string;
  title: string;
  tabsLabel: string;
  tabs: ReadonlyArray<Tab<K>>;
  selected: K;
  onSelect: (key: K) => void;
  text: string;
  what: string;
  children: ReactNode;
}) {
  const panelId = useId();
  return (
    <section id={id} aria-labelledby={`${panelId}-title`} className="rounded-lg border border-slate-200 bg-white p-5">
      <h2 id={`${panelId}-title`} className="text-lg font-semibold">
        {title}
      </h2>
      <p className="mt-1 text-sm text-slate-600">{children}</p>
      <div className="mt-3">
        <TabList label={tabsLabel} tabs={tabs} selected={selected} onSelect={onSelect} panelId={panelId} />
        <div id={panelId} role="tabpanel" tabIndex={0} className="space-y-2 rounded-b-md border border-t-0 border-slate-200 p-3">
          <CopyButton text={text} what={what} />
          <pre aria-label={what} className="overflow-auto rounded-md bg-slate-50 p-3 font-mono text-xs">
            {text}
          </pre>
        </div>
      </div>
    </section>
  );
}
