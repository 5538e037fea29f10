import type { Message } from "@ag-ui/core";
import type { AgentInputItem } from "@openai/agents";
import { mediaNamedText } from "../../media-text";
import { textOf } from "../../models/common";
import { notRun } from "./console-tools";

/**
 * A thread's AG-UI messages as the SDK's input items, in order: user, system and developer text as
 * messages, an assistant's text as an output message and each of its tool calls as a
 * `function_call` under its own id, a tool message as the `function_call_output` of that id.
 * Reasoning and activity messages are left out (they carry nothing the model can replay here).
 * A call the history leaves unanswered gets an answer saying it did not run: the providers refuse
 * a conversation with a call and no output.
 */
export function toAgentInput(messages: readonly Message[]): AgentInputItem[] {
  const items: AgentInputItem[] = [];
  const names = new Map<string, string>();
  const answered = new Set(messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  for (const message of messages) {
    switch (message.role) {
      case "user":
        items.push({ role: "user", content: textOf(message) });
        break;
      case "system":
      case "developer":
        items.push({ role: "system", content: textOf(message) });
        break;
      case "assistant": {
        const text = textOf(message);
        if (text) items.push({ role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
        const open: string[] = [];
        for (const call of message.toolCalls ?? []) {
          names.set(call.id, call.function.name);
          items.push({
            type: "function_call",
            callId: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
            status: "completed",
          });
          if (!answered.has(call.id)) open.push(call.id);
        }
        for (const callId of open)
          items.push(output(callId, names.get(callId)!, JSON.stringify(notRun("This call was not run: no answer came for it"))));
        break;
      }
      case "tool":
        items.push(output(message.toolCallId, names.get(message.toolCallId) ?? "tool", mediaNamedText(textOf(message))));
        break;
      default:
        break;
    }
  }
  return items;
}

function output(callId: string, name: string, text: string): AgentInputItem {
  return { type: "function_call_result", callId, name, status: "completed", output: { type: "text", text } };
}
