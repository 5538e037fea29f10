import { type BaseEvent, EventType } from "@ag-ui/core";
import { AgentState } from "../lib/client/agent-state";
import type { AGUIAgent } from "../lib/client/types";
import type { BenchResult } from "./support/measure";

const BUDGET_MS = 500;
const TOOL_CALLS = 1_000;

/** A recorded-style run of at least `total` events: `toolCalls` turns of streamed text then a tool call with its result. */
function runEvents(total: number, toolCalls: number): BaseEvent[] {
  const perTurn = Math.ceil((total - 2) / toolCalls);
  const deltas = perTurn - 7; // each turn also has TEXT START/END and tool START, ARGS×2, END, RESULT
  const events: BaseEvent[] = [{ type: EventType.RUN_STARTED, threadId: "bench", runId: "r1" } as BaseEvent];
  for (let turn = 0; turn < toolCalls; turn++) {
    const messageId = `m${turn}`;
    const toolCallId = `c${turn}`;
    events.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" } as BaseEvent);
    for (let i = 0; i < deltas; i++) events.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: "token " } as BaseEvent);
    events.push({ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent);
    events.push({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: "lookup", parentMessageId: messageId } as BaseEvent);
    events.push({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: '{"query":' } as BaseEvent);
    events.push({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: `"item ${turn}"}` } as BaseEvent);
    events.push({ type: EventType.TOOL_CALL_END, toolCallId } as BaseEvent);
    events.push({
      type: EventType.TOOL_CALL_RESULT,
      messageId: `t${turn}`,
      toolCallId,
      content: JSON.stringify({ ok: true, value: { n: turn } }),
    } as BaseEvent);
  }
  events.push({ type: EventType.RUN_FINISHED, threadId: "bench", runId: "r1" } as BaseEvent);
  return events;
}

const idleAgent: AGUIAgent = {
  // eslint-disable-next-line require-yield
  async *run() {
    return;
  },
};

/** Applies the events to a fresh store with one subscriber reading every snapshot (as useSyncExternalStore does). */
function applyAll(events: BaseEvent[]): { ms: number; messages: number; toolCalls: number } {
  const store = new AgentState({ agent: idleAgent, threadId: "bench" });
  let reads = 0;
  store.subscribe(() => {
    reads += store.getSnapshot().version > 0 ? 1 : 0;
  });
  const started = performance.now();
  for (const event of events) store.apply(event);
  const ms = performance.now() - started;
  const snapshot = store.getSnapshot();
  if (reads !== events.length || snapshot.status !== "finished") throw new Error("the benchmark run did not apply as expected");
  return { ms, messages: snapshot.messages.length, toolCalls: snapshot.toolCalls.size };
}

/** AgentState: 50,000 events (text deltas and 1,000 tool calls) must apply in under 500 ms in Node. */
export async function benchClient(): Promise<BenchResult> {
  const events = runEvents(50_000, TOOL_CALLS);
  const first = applyAll(events);
  // Per-event cost must not grow with the thread: four times the events and the messages should take about four times as long.
  const large = runEvents(200_000, 4 * TOOL_CALLS);
  const big = applyAll(large);
  return {
    title: "client: the AgentState store applying a run's events, one subscriber reading every snapshot",
    figures: [
      {
        label: `${events.length.toLocaleString("en")} events (${first.toolCalls} tool calls, ${first.messages} messages)`,
        value: first.ms,
        unit: "ms",
        target: { max: BUDGET_MS },
      },
      { label: "  per event", value: (first.ms * 1000) / events.length, unit: "µs" },
      { label: `${large.length.toLocaleString("en")} events (${big.messages} messages)`, value: big.ms, unit: "ms" },
      { label: "  per event", value: (big.ms * 1000) / large.length, unit: "µs" },
    ],
  };
}

export default benchClient;
