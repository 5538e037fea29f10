import type { Message } from "@ag-ui/core";
import {
  AIMessage,
  HumanMessage,
  ToolMessage,
  isAIMessage,
  isHumanMessage,
  isSystemMessage,
  isToolMessage,
  type BaseMessage,
} from "@langchain/core/messages";
import { isJsonObject } from "../../../json/canonical";
import { mediaNamedText } from "../../media-text";
import { textOf } from "../../models/common";

/**
 * The fields of a graph's tool message answering with `text` (a result's JSON): the model reads
 * `content`, where media are named rather than spelled out (lib/agents/media-text.ts); when that
 * changed anything, `artifact` keeps the whole text, which LangChain never sends to a model.
 */
export function toolMessageFields(text: string): { content: string; artifact?: string } {
  const named = mediaNamedText(text);
  return named === text ? { content: text } : { content: named, artifact: text };
}

/** A graph's tool message as its thread keeps it: the whole text its artifact holds, else its content. */
export function toolMessageText(message: ToolMessage): string {
  return typeof message.artifact === "string" ? message.artifact : textContent(message.content);
}

/**
 * An AG-UI message as a LangChain message with the same id, or undefined for the roles a graph
 * does not take: reasoning and activity messages are the console's own, and system or developer
 * messages from a client are not let in as instructions (the graph has its own prompt).
 */
export function toLangChainMessage(message: Message): BaseMessage | undefined {
  switch (message.role) {
    case "user":
      return new HumanMessage({ id: message.id, content: textOf(message) });
    case "assistant":
      return new AIMessage({
        id: message.id,
        content: message.content ?? "",
        tool_calls: (message.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.function.name,
          args: argumentsOf(call.function.arguments),
          type: "tool_call" as const,
        })),
      });
    case "tool":
      return new ToolMessage({
        id: message.id,
        tool_call_id: message.toolCallId,
        ...toolMessageFields(textOf(message)),
        ...(message.error ? { status: "error" as const } : {}),
      });
    default:
      return undefined;
  }
}

/** A LangChain message as the AG-UI message a client holds (undefined for kinds AG-UI has no role for). */
export function toAguiMessage(message: BaseMessage, id = message.id ?? ""): Message | undefined {
  if (isHumanMessage(message)) return { id, role: "user", content: textContent(message.content) };
  if (isSystemMessage(message)) return { id, role: "system", content: textContent(message.content) };
  if (isToolMessage(message))
    return {
      id,
      role: "tool",
      toolCallId: message.tool_call_id,
      content: toolMessageText(message),
      ...(message.status === "error" ? { error: textContent(message.content) } : {}),
    };
  if (isAIMessage(message)) {
    const text = textContent(message.content);
    const calls = message.tool_calls ?? [];
    return {
      id,
      role: "assistant",
      ...(text ? { content: text } : {}),
      ...(calls.length
        ? {
            toolCalls: calls.map((call) => ({
              id: call.id ?? "",
              type: "function" as const,
              function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
            })),
          }
        : {}),
    };
  }
  return undefined;
}

/** The text of LangChain message content: a string, or the text blocks of a content list. */
export function textContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(
      (block): block is { type: "text"; text: string } => isJsonObject(block) && block.type === "text" && typeof block.text === "string",
    )
    .map((block) => block.text)
    .join("");
}

/** The messages a graph state holds under `messages`, if it holds any. */
export function stateMessages(values: unknown): BaseMessage[] {
  const messages =
    isJsonObject(values) || (typeof values === "object" && values !== null) ? (values as { messages?: unknown }).messages : undefined;
  return Array.isArray(messages) ? (messages as BaseMessage[]) : [];
}

function argumentsOf(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : {};
  } catch {
    return {};
  }
}
