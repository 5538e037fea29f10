"use client";

import { memo } from "react";
import type { ChatMessage, ToolCallView } from "@/lib/client";
import { Markdown } from "../common/markdown";
import { ToolCallEntry } from "./tool-call-entry";

function textOf(content: ChatMessage["content"]): string {
  return typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}

/**
 * One entry of the conversation (the list item around it is MessageList's). Assistant messages
 * show their text then their tool calls as timeline entries; reasoning folds away; tool messages
 * are shown by the call they answer, so they render nothing here.
 */
export const MessageItem = memo(function MessageItem({ message, calls }: { message: ChatMessage; calls: readonly ToolCallView[] }) {
  const text = textOf(message.content);
  switch (message.role) {
    case "user":
      return (
        <div className="flex justify-end">
          <div className="max-w-[80%] whitespace-pre-wrap [overflow-wrap:anywhere] rounded-2xl rounded-br-sm bg-indigo-600 px-4 py-2 text-sm text-white">
            {text}
          </div>
        </div>
      );
    case "reasoning":
      return (
        <div>
          <details className="rounded-md border border-dashed border-slate-300 bg-white/60 px-3 py-2 text-xs text-slate-600">
            <summary className="cursor-pointer font-medium">Reasoning{message.streaming ? "…" : ""}</summary>
            <p className="mt-1 whitespace-pre-wrap">{text}</p>
          </details>
        </div>
      );
    case "tool":
      return null;
    case "assistant":
      return (
        <div className="space-y-2" aria-busy={message.streaming || undefined}>
          {text ? (
            <div className="max-w-[90%] [overflow-wrap:anywhere] rounded-2xl rounded-bl-sm bg-white px-4 py-2 shadow-sm ring-1 ring-slate-200">
              <Markdown text={text} />
              {message.streaming ? (
                <span className="ml-1 inline-block h-3 w-1.5 animate-pulse bg-slate-400 align-middle" aria-hidden />
              ) : null}
            </div>
          ) : null}
          {calls.length ? (
            <ol className="space-y-2 border-l-2 border-slate-200 pl-4" aria-label="Tool calls">
              {calls.map((call) => (
                <li key={call.id}>
                  <ToolCallEntry call={call} />
                </li>
              ))}
            </ol>
          ) : null}
        </div>
      );
    default:
      return (
        <div className="text-xs text-slate-500">
          <span className="font-medium">{message.role}:</span> {text}
        </div>
      );
  }
});
