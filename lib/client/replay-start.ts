import { EventType, type BaseEvent, type Message } from "@ag-ui/core";

/**
 * The conversation a recorded run started from, to load into a store before replaying its events:
 * the messages of its last MESSAGES_SNAPSHOT up to the first one the run itself streamed. A store
 * puts the messages of a snapshot it has not seen after the ones it has (AG-UI's rule for
 * snapshots), so a replay starting empty showed the user's message below the answer to it. Empty
 * when the record holds no snapshot yet (a run still going).
 */
export function replayStart(events: readonly BaseEvent[]): Message[] {
  let snapshot: Message[] | undefined;
  const streamed = new Set<string>();
  const calls = new Set<string>();
  for (const event of events) {
    if (event.type === EventType.MESSAGES_SNAPSHOT) {
      const messages = (event as BaseEvent & { messages?: unknown }).messages;
      if (Array.isArray(messages)) snapshot = messages as Message[];
      continue;
    }
    // The messages an event opens or adds to: text, reasoning and tool results by their id, tool
    // calls by the assistant message that holds them.
    const { messageId, parentMessageId, toolCallId } = event as BaseEvent & {
      messageId?: unknown;
      parentMessageId?: unknown;
      toolCallId?: unknown;
    };
    if (typeof messageId === "string") streamed.add(messageId);
    if (typeof parentMessageId === "string") streamed.add(parentMessageId);
    if (event.type === EventType.TOOL_CALL_START && typeof toolCallId === "string") calls.add(toolCallId);
  }
  if (!snapshot) return [];
  const start: Message[] = [];
  for (const message of snapshot) {
    if (streamed.has(message.id)) break;
    // An assistant message holding a call the run started, named by no event (no parentMessageId).
    if (message.role === "assistant" && message.toolCalls?.some((call) => calls.has(call.id))) break;
    start.push(message);
  }
  return start;
}

/**
 * The message a replay marks as where the run begins: the question that ends the conversation it
 * started from (its trailing user messages), else (a resume) the first message the run added.
 * Undefined when the run started the thread: there is nothing before it to tell apart.
 */
export function runStartId(start: readonly Message[], shown: readonly { id: string; role: string }[]): string | undefined {
  let first = start.length;
  while (first > 0 && start[first - 1]!.role === "user") first--;
  if (first === 0) return undefined;
  if (first < start.length) return start[first]!.id;
  const before = new Set(start.map((message) => message.id));
  return shown.find((message) => !before.has(message.id) && message.role !== "tool")?.id;
}
