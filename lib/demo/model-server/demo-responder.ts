import { ScriptedModel } from "../../agents/scripted-model";
import type { ReadConversation, Responder, ScriptedTurn } from "./script";

/**
 * A responder that answers any conversation the way the demo agent's scripted model does (weather,
 * calculations, refunds, `/tool {json}`...), in whatever wire format it was asked in: with it the
 * framework demo agents run offline, their SDKs talking to the scripted server as to a provider.
 */
export function demoResponder(): Responder {
  const model = new ScriptedModel();
  return async (conversation: ReadConversation): Promise<ScriptedTurn> => {
    const turn: ScriptedTurn & { reasoning: string; text: string } = { reasoning: "", text: "", toolCalls: [] };
    const signal = new AbortController().signal;
    for (const chunk of model.respond({
      system: conversation.system,
      messages: conversation.messages,
      tools: conversation.tools,
      signal,
    })) {
      if (chunk.type === "text") turn.text += chunk.delta;
      else if (chunk.type === "reasoning") turn.reasoning += chunk.delta;
      else if (chunk.type === "tool_call") turn.toolCalls!.push({ name: chunk.name, args: chunk.args });
    }
    const words = (text: string) => (text ? text.split(/\s+/).length : 0);
    // Rough counts, so the demo's usage figures move with what was said.
    const input = conversation.messages.reduce((n, m) => n + words(typeof m.content === "string" ? m.content : ""), 0);
    turn.usage = {
      input: Math.max(1, input),
      output: Math.max(1, words(turn.text) + words(turn.reasoning)),
      reasoning: words(turn.reasoning),
    };
    return turn;
  };
}
