import { type BaseEvent, EventType, type Interrupt, type RunAgentInput } from "@ag-ui/core";
import type { AGUIAgent, StreamOptions } from "@/lib/client";

/** Events of one recorded run, with the run's ids filled in. */
export const ev = {
  runStarted: (runId = "r1", threadId = "t1"): BaseEvent => ({ type: EventType.RUN_STARTED, threadId, runId }) as BaseEvent,
  runFinished: (runId = "r1", outcome?: unknown, threadId = "t1"): BaseEvent =>
    ({ type: EventType.RUN_FINISHED, threadId, runId, ...(outcome ? { outcome } : {}) }) as BaseEvent,
  runError: (message: string, code?: string): BaseEvent => ({ type: EventType.RUN_ERROR, message, ...(code ? { code } : {}) }) as BaseEvent,
  text: (messageId: string, ...deltas: string[]): BaseEvent[] => [
    { type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" } as BaseEvent,
    ...deltas.map((delta) => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta }) as BaseEvent),
    { type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent,
  ],
  toolCall: (toolCallId: string, name: string, args: string[], parentMessageId?: string): BaseEvent[] => [
    { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: name, ...(parentMessageId ? { parentMessageId } : {}) } as BaseEvent,
    ...args.map((delta) => ({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta }) as BaseEvent),
    { type: EventType.TOOL_CALL_END, toolCallId } as BaseEvent,
  ],
  toolResult: (toolCallId: string, content: string, messageId = `res-${toolCallId}`): BaseEvent =>
    ({ type: EventType.TOOL_CALL_RESULT, messageId, toolCallId, content, role: "tool" }) as BaseEvent,
  interrupt: (interrupts: Interrupt[]) => ({ type: "interrupt", interrupts }),
};

export interface ScriptedAgent extends AGUIAgent {
  inputs: RunAgentInput[];
  /** Set once a run's iteration was torn down (its finally ran). */
  closed: number;
}

/**
 * A fake AGUIAgent (a port fake): run number n yields the n-th script. A script entry "hang"
 * waits until the signal aborts.
 */
export function scriptedAgent(...runs: (BaseEvent | "hang")[][]): ScriptedAgent {
  const agent: ScriptedAgent = {
    inputs: [],
    closed: 0,
    async *run(input: RunAgentInput, options?: StreamOptions) {
      const script = runs[agent.inputs.length] ?? [];
      agent.inputs.push(structuredClone(input));
      try {
        for (const item of script) {
          if (item === "hang") {
            await new Promise<void>((resolve) => options?.signal?.addEventListener("abort", () => resolve(), { once: true }));
            return;
          }
          yield item;
        }
      } finally {
        agent.closed += 1;
      }
    },
  };
  return agent;
}

/** Applies events one by one. */
export function feed(target: { apply(event: BaseEvent): void }, ...events: (BaseEvent | BaseEvent[])[]): void {
  for (const event of events.flat()) target.apply(event);
}
