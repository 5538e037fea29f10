import { randomUUID } from "node:crypto";
import type { AssistantMessage, Message, ToolMessage } from "@ag-ui/core";
import type { ToolResult } from "../execution/result";

/** A fresh id with a readable prefix ("msg_…", "call_…"). */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 20)}`;
}

/** The tool message that answers `toolCallId` with `result` (its content is the result's JSON). */
export function toolResultMessage(toolCallId: string, result: ToolResult): ToolMessage {
  return {
    id: newId("msg"),
    role: "tool",
    toolCallId,
    content: JSON.stringify(result),
    ...(!result.ok && { error: result.error.message }),
  };
}

/**
 * The messages of a thread in the order a client holds them: what the run was given, then what it
 * adds. A tool's answer goes right after the assistant message that made the call (with the other
 * answers to that message), wherever the conversation has got to since.
 */
export class Conversation {
  private readonly list: Message[];

  constructor(messages: readonly Message[] = []) {
    this.list = [...messages];
  }

  get messages(): readonly Message[] {
    return this.list;
  }

  push(message: Message): void {
    this.list.push(message);
  }

  /** A new assistant message with no text, to carry tool calls. */
  newAssistantMessage(): AssistantMessage {
    const message: AssistantMessage = { id: newId("msg"), role: "assistant", toolCalls: [] };
    this.list.push(message);
    return message;
  }

  /** True when a tool message already answers `toolCallId`. */
  hasAnswer(toolCallId: string): boolean {
    return this.list.some((m) => m.role === "tool" && m.toolCallId === toolCallId);
  }

  /** Add a tool's answer after the calls of the assistant message that made it (at the end when none did). */
  addToolMessage(message: ToolMessage): void {
    const owner = this.list.findLastIndex((m) => m.role === "assistant" && (m.toolCalls ?? []).some((c) => c.id === message.toolCallId));
    if (owner === -1) {
      this.list.push(message);
      return;
    }
    let at = owner + 1;
    while (at < this.list.length && this.list[at]!.role === "tool") at++;
    this.list.splice(at, 0, message);
  }
}
