import type { Message, ToolCall } from "@ag-ui/core";
import type { ChatMessage, ToolCallView } from "./snapshot";

/**
 * The conversation as the next RunAgentInput carries it: assistant messages with their
 * `toolCalls` (arguments as streamed), tool results as `tool` messages, reasoning as
 * `reasoning` messages. O(messages), once per run.
 */
export function toWireMessages(messages: readonly ChatMessage[], toolCalls: ReadonlyMap<string, ToolCallView>): Message[] {
  return messages.map((message): Message => {
    const base = { id: message.id, ...(message.name !== undefined ? { name: message.name } : {}) };
    switch (message.role) {
      case "assistant": {
        const calls: ToolCall[] = [];
        for (const id of message.toolCallIds ?? []) {
          const call = toolCalls.get(id);
          if (call) calls.push({ id, type: "function", function: { name: call.name, arguments: call.argsText } });
        }
        const text = textOf(message.content);
        return {
          ...base,
          role: "assistant",
          ...(text || calls.length === 0 ? { content: text } : {}),
          ...(calls.length ? { toolCalls: calls } : {}),
        };
      }
      case "tool":
        return {
          id: message.id,
          role: "tool",
          toolCallId: message.toolCallId ?? "",
          content: message.content,
          ...(message.error !== undefined ? { error: message.error } : {}),
        };
      case "user":
        return { ...base, role: "user", content: message.content };
      case "reasoning":
        return { id: message.id, role: "reasoning", content: textOf(message.content) };
      case "system":
      case "developer":
        return { ...base, role: message.role, content: textOf(message.content) };
    }
  });
}

/** A stored or snapshotted message as a chat entry; activity messages have none. */
export function fromWireMessage(message: Message): ChatMessage | undefined {
  switch (message.role) {
    case "assistant":
      return {
        id: message.id,
        role: "assistant",
        content: message.content ?? "",
        ...(message.name !== undefined ? { name: message.name } : {}),
        ...(message.toolCalls?.length ? { toolCallIds: message.toolCalls.map((call) => call.id) } : {}),
        streaming: false,
      };
    case "tool":
      return {
        id: message.id,
        role: "tool",
        content: message.content,
        toolCallId: message.toolCallId,
        ...(message.error !== undefined ? { error: message.error } : {}),
        streaming: false,
      };
    case "user":
    case "system":
    case "developer":
      return {
        id: message.id,
        role: message.role,
        content: message.content,
        ...(message.name !== undefined ? { name: message.name } : {}),
        streaming: false,
      };
    case "reasoning":
      return { id: message.id, role: "reasoning", content: message.content, streaming: false };
    default:
      return undefined;
  }
}

function textOf(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}
