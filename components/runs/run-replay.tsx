"use client";

import type { BaseEvent } from "@ag-ui/core";
import { useId, useMemo, useRef, useState } from "react";
import { AgentState, type AgentClient } from "@/lib/client";
import { JsonView } from "../common/json-view";
import { TabList } from "../common/tab-list";
import { MessageList } from "../chat/message-list";

/** A client that never runs anything: replay only applies recorded events. */
const NO_CLIENT: AgentClient = {
  stream: () => {
    throw new Error("A replayed run cannot run again");
  },
  aclose: async () => {},
};

/** A recorded run replayed through the same store and components as the chat, with the raw events. */
export function RunReplay({ runId, events }: { runId: string; events: BaseEvent[] }) {
  const [view, setView] = useState<"timeline" | "raw">("timeline");
  const scrollRef = useRef<HTMLDivElement>(null);
  const panelId = useId();
  const snapshot = useMemo(() => {
    const state = new AgentState({ client: NO_CLIENT });
    for (const event of events) state.apply(event);
    return state.getSnapshot();
  }, [events]);
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-2">
        <TabList
          label="Run view"
          variant="pill"
          panelId={panelId}
          selected={view}
          onSelect={setView}
          tabs={[
            { key: "timeline", label: "Timeline" },
            { key: "raw", label: `Raw events (${events.length})` },
          ]}
        />
        <a
          className="ml-auto rounded-md border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100"
          href={`/api/runs/${encodeURIComponent(runId)}/events?format=jsonl`}
          download={`run-${runId}.jsonl`}
        >
          Download JSON Lines
        </a>
      </div>
      <div role="tabpanel" id={panelId} aria-labelledby={`${panelId}-tab-${view}`}>
        {view === "timeline" ? (
          <div className="grid gap-4 lg:grid-cols-[1fr_18rem]">
            <div ref={scrollRef} className="max-h-[75vh] overflow-y-auto">
              <MessageList snapshot={snapshot} scrollRef={scrollRef} />
            </div>
            <aside aria-label="State at the end of the run" className="rounded-lg border border-slate-200 bg-white p-3">
              <h2 className="mb-2 text-sm font-semibold">State at the end</h2>
              <JsonView value={snapshot.state} openDepth={3} label="Final state" />
              {snapshot.interrupts.length ? (
                <>
                  <h2 className="mt-3 mb-1 text-sm font-semibold">Interrupts</h2>
                  <JsonView value={snapshot.interrupts.map((i) => i.interrupt)} openDepth={2} label="Interrupts" />
                </>
              ) : null}
            </aside>
          </div>
        ) : (
          <ol className="space-y-1 font-mono text-xs" aria-label="Raw events">
            {events.map((event, i) => (
              <li key={i} className="rounded bg-white px-2 py-1 ring-1 ring-slate-200">
                <span className="mr-2 text-slate-400">{i}</span>
                <span className="font-semibold">{event.type}</span>{" "}
                <span className="break-all text-slate-600">{JSON.stringify({ ...event, type: undefined })}</span>
              </li>
            ))}
          </ol>
        )}
      </div>
    </div>
  );
}
