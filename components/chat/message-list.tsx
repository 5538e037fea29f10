"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, type RefObject } from "react";
import type { AgentSnapshot, ChatMessage, ToolCallView } from "@/lib/client";
import { MessageItem } from "./message-item";

/** Threads longer than this render only the messages in view. */
const VIRTUAL_FROM = 120;

/**
 * The conversation as a list. Short threads render every message; long ones (a thousand messages
 * with hundreds of tool calls) render the ones in view plus a margin, inside `scrollRef`.
 */
export function MessageList({
  snapshot,
  scrollRef,
  label = "Messages",
  startsAt,
}: {
  snapshot: AgentSnapshot;
  scrollRef: RefObject<HTMLElement | null>;
  label?: string;
  /** A replayed run's first message (after the conversation it started from): marked "This run". */
  startsAt?: string;
}) {
  // Tool messages are shown on the call they answer, not as entries of their own.
  const messages = snapshot.messages.filter((m) => m.role !== "tool");
  const callsOf = (message: ChatMessage): ToolCallView[] => (message.toolCallIds ?? []).flatMap((id) => snapshot.toolCalls.get(id) ?? []);
  if (messages.length < VIRTUAL_FROM)
    return (
      <ol className="space-y-3" aria-label={label}>
        {messages.map((message) => (
          <li key={message.id} data-role={message.role}>
            {message.id === startsAt ? <RunStart /> : null}
            <MessageItem message={message} calls={callsOf(message)} />
          </li>
        ))}
      </ol>
    );
  return (
    <VirtualMessageList
      messages={messages}
      callsOf={callsOf}
      scrollRef={scrollRef}
      label={label}
      version={snapshot.version}
      startsAt={startsAt}
    />
  );
}

/** Where a replayed run begins in its thread's conversation. */
function RunStart() {
  return (
    <p data-run-start className="mb-3 flex items-center gap-2 text-xs font-medium uppercase tracking-wide text-slate-500">
      <span className="h-px flex-1 bg-slate-300" />
      This run
      <span className="h-px flex-1 bg-slate-300" />
    </p>
  );
}

function VirtualMessageList({
  messages,
  callsOf,
  scrollRef,
  label,
  version,
  startsAt,
}: {
  messages: ChatMessage[];
  callsOf: (message: ChatMessage) => ToolCallView[];
  scrollRef: RefObject<HTMLElement | null>;
  label: string;
  version: number;
  startsAt?: string;
}) {
  const virtualizer = useVirtualizer({
    count: messages.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => (messages[index]!.toolCallIds?.length ? 260 : 80),
    getItemKey: (index) => messages[index]!.id,
    overscan: 6,
    // React 19 refuses flushSync inside the effects where the virtualizer first measures.
    useFlushSync: false,
    initialRect: { width: 800, height: 800 },
    initialOffset: () => messages.length * 200,
  });
  // Open a long thread at its end, where the conversation goes on (once, when first shown).
  useEffect(() => {
    const element = scrollRef.current;
    if (!element) return;
    const toEnd = () => (element.scrollTop = element.scrollHeight);
    toEnd();
    // Sizes are estimates until the rows in view are measured: settle at the end once they are.
    const frame = requestAnimationFrame(toEnd);
    return () => cancelAnimationFrame(frame);
  }, [scrollRef]);
  void version;
  return (
    <ol aria-label={label} className="relative" style={{ height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((row) => {
        const message = messages[row.index]!;
        return (
          <li
            key={row.key}
            data-index={row.index}
            data-role={message.role}
            ref={virtualizer.measureElement}
            aria-setsize={messages.length}
            aria-posinset={row.index + 1}
            className="absolute left-0 top-0 w-full pb-3"
            style={{ transform: `translateY(${row.start}px)` }}
          >
            {message.id === startsAt ? <RunStart /> : null}
            <MessageItem message={message} calls={callsOf(message)} />
          </li>
        );
      })}
    </ol>
  );
}
