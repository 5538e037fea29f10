"use client";

import type { BaseEvent } from "@ag-ui/core";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { AgentState, type AgentClient } from "@/lib/client";
import { replayStart, runStartId } from "@/lib/client/replay-start";
import { SseParser } from "@/lib/client/sse-parser";
import { useAgentState } from "@/lib/client/use-agent-state";
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

type Follow = "off" | "following" | "ended" | "failed";

/**
 * A recorded run replayed through the same store and components as the chat, with the raw events,
 * from the state the run was given (`inputState`: its STATE_DELTAs patch that one).
 * A run still going (`live`) is followed: the events recorded after those given arrive through GET
 * /api/runs/ID/stream (from whichever console instance runs it) and are applied as they come;
 * when the run ends the page is refreshed, so its status and duration are read again.
 */
export function RunReplay({
  runId,
  events,
  inputState,
  live = false,
}: {
  runId: string;
  events: BaseEvent[];
  inputState?: unknown;
  live?: boolean;
}) {
  const [view, setView] = useState<"timeline" | "raw">("timeline");
  const scrollRef = useRef<HTMLDivElement>(null);
  const panelId = useId();
  // Built once: the page keys this component on the events it was given, and a followed run's
  // later events are applied to this same store.
  const [{ store, startsAt }] = useState(() => {
    const state = new AgentState({ client: NO_CLIENT });
    const start = replayStart(events);
    state.loadThread({ messages: start, state: inputState ?? undefined });
    for (const event of events) state.apply(event);
    return { store: state, startsAt: runStartId(start, state.getSnapshot().messages) };
  });
  const snapshot = useAgentState(store);
  // Open at the run, below the conversation it started from.
  useEffect(() => {
    const container = scrollRef.current;
    const marker = container?.querySelector<HTMLElement>("[data-run-start]");
    if (container && marker) container.scrollTop += marker.getBoundingClientRect().top - container.getBoundingClientRect().top;
  }, []);
  const [more, setMore] = useState<BaseEvent[]>([]);
  const apply = useCallback(
    (arrived: BaseEvent[]) => {
      for (const event of arrived) store.apply(event);
      setMore((earlier) => earlier.concat(arrived));
    },
    [store],
  );
  const follow = useFollow(runId, events.length, live, apply);
  return (
    <div className="space-y-4">
      {follow === "following" ? (
        <p role="status" className="text-sm text-slate-600">
          The run is still going: its events appear here as they are recorded.
        </p>
      ) : follow === "failed" ? (
        <p role="status" className="text-sm text-amber-800">
          The run could not be followed any further; reload the page to see what it recorded since.
        </p>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <TabList
          label="Run view"
          variant="pill"
          panelId={panelId}
          selected={view}
          onSelect={setView}
          tabs={[
            { key: "timeline", label: "Timeline" },
            { key: "raw", label: `Raw events (${events.length + more.length})` },
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
              <MessageList snapshot={snapshot} scrollRef={scrollRef} startsAt={startsAt} />
            </div>
            <aside
              aria-label={follow === "following" ? "State of the run so far" : "State at the end of the run"}
              className="rounded-lg border border-slate-200 bg-white p-3"
            >
              <h2 className="mb-2 text-sm font-semibold">{follow === "following" ? "State so far" : "State at the end"}</h2>
              <JsonView value={snapshot.state} openDepth={3} label="Final state" />
              {inputState !== undefined && inputState !== null ? (
                <>
                  <h2 className="mt-3 mb-1 text-sm font-semibold">State it was given</h2>
                  <JsonView value={inputState} openDepth={1} label="State the run was given" />
                </>
              ) : null}
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
            {(more.length ? events.concat(more) : events).map((event, i) => (
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

/**
 * Follow a run that is still going: the frames of GET /api/runs/ID/stream after the `known` events
 * already shown, handed to `apply` chunk by chunk. Once the stream ends (so has the run), the page
 * is refreshed. Stops when the component goes away.
 */
function useFollow(runId: string, known: number, live: boolean, apply: (events: BaseEvent[]) => void): Follow {
  const [follow, setFollow] = useState<Follow>(live ? "following" : "off");
  const router = useRouter();
  useEffect(() => {
    if (!live) return;
    const controller = new AbortController();
    void (async () => {
      try {
        const response = await fetch(`/api/runs/${encodeURIComponent(runId)}/stream?after=${known - 1}`, {
          headers: { accept: "text/event-stream" },
          signal: controller.signal,
        });
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        const parser = new SseParser();
        const reader = response.body.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          const arrived: BaseEvent[] = [];
          for (const data of done ? parser.end() : parser.push(value)) {
            try {
              arrived.push(JSON.parse(data) as BaseEvent);
            } catch {
              // A frame that is not JSON is no event: skipped, as the chat's client does.
            }
          }
          if (arrived.length) apply(arrived);
          if (done) break;
        }
        setFollow("ended");
        router.refresh();
      } catch {
        if (!controller.signal.aborted) setFollow("failed");
      }
    })();
    return () => controller.abort();
  }, [runId, known, live, apply, router]);
  return follow;
}
