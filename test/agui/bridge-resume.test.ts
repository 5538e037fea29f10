import { randomUUID } from "node:crypto";
import { EventType, type AGUIEvent, type Message, type RunAgentInput } from "@ag-ui/core";
import { afterAll, describe, expect, it } from "vitest";
import { interruptFor, type Agent } from "@/lib/agents";
import { consoleApi } from "@/lib/api";
import { isPending } from "@/lib/execution";
import { parseFrames, userMessage } from "../support/agui-client";
import { testServices } from "../support/services";

const services = testServices({ AGENT_STREAM_DELAY_MS: "0" });
afterAll(() => services.close());

/**
 * An agent written without agentFunction: an async generator that calls the executor itself and
 * says nothing about resume. The bridge must give it resume all the same.
 */
const seen: Message[][] = [];
const bare: Agent = {
  info: {
    name: "bare",
    description: "a hand-written agent",
    model: "none",
    capabilities: { tools: true, clientTools: false, approvals: true, sharedState: false, reasoning: false },
  },
  async *run(input: RunAgentInput, ctx) {
    const at = Date.now();
    seen.push(input.messages);
    yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId, timestamp: at } as AGUIEvent;
    const answered = input.messages.some((m) => m.role === "tool");
    if (answered) {
      yield { type: EventType.TEXT_MESSAGE_START, messageId: `m-${input.runId}`, role: "assistant", timestamp: at } as AGUIEvent;
      yield {
        type: EventType.TEXT_MESSAGE_CONTENT,
        messageId: `m-${input.runId}`,
        delta: "The refund went through.",
        timestamp: at,
      } as AGUIEvent;
      yield { type: EventType.TEXT_MESSAGE_END, messageId: `m-${input.runId}`, timestamp: at } as AGUIEvent;
      yield {
        type: EventType.RUN_FINISHED,
        threadId: input.threadId,
        runId: input.runId,
        outcome: { type: "success" },
        timestamp: at,
      } as AGUIEvent;
      return;
    }
    const callId = `call-${input.runId}`;
    const args = { orderId: "77", amount: 5 };
    yield { type: EventType.TOOL_CALL_START, toolCallId: callId, toolCallName: "issue_refund", timestamp: at } as AGUIEvent;
    yield { type: EventType.TOOL_CALL_ARGS, toolCallId: callId, delta: JSON.stringify(args), timestamp: at } as AGUIEvent;
    yield { type: EventType.TOOL_CALL_END, toolCallId: callId, timestamp: at } as AGUIEvent;
    const outcome = await ctx.executor.call("issue_refund", args, {
      callId,
      ctx: { runId: input.runId, threadId: input.threadId, principal: ctx.principal.id, scope: `agui:${input.threadId}`, surface: "agui" },
    });
    if (!isPending(outcome)) throw new Error("expected the refund to wait for approval");
    const approval = (await services.approvals.get(outcome.pending.approvalId))!;
    yield {
      type: EventType.RUN_FINISHED,
      threadId: input.threadId,
      runId: input.runId,
      outcome: { type: "interrupt", interrupts: [interruptFor(approval)] },
      timestamp: at,
    } as AGUIEvent;
  },
};
services.agents.add(bare);

async function post(input: Record<string, unknown>): Promise<AGUIEvent[]> {
  const response = await consoleApi(services).agui.run(
    new Request("http://127.0.0.1/api/agui/bare", {
      method: "POST",
      headers: { host: "127.0.0.1", "content-type": "application/json" },
      body: JSON.stringify({ protocolVersion: "1.0", state: {}, tools: [], context: [], forwardedProps: {}, ...input }),
    }),
    { params: Promise.resolve({ agent: "bare" }) },
  );
  expect(response.status).toBe(200);
  return parseFrames(await response.text());
}

describe("the bridge answers the console's interrupts for any agent", () => {
  it("a hand-written agent pauses on an approval, and the resume runs the call once and hands the agent the answer", async () => {
    const threadId = `t-${randomUUID()}`;
    const first = await post({ threadId, runId: `r-${randomUUID()}`, messages: [userMessage("refund order 77")] });
    expect(first.filter((e) => e.type === EventType.RUN_STARTED)).toHaveLength(1);
    const finished = first.at(-1) as Extract<AGUIEvent, { type: EventType.RUN_FINISHED }>;
    expect(finished.outcome).toMatchObject({
      type: "interrupt",
      interrupts: [{ reason: "tool_call", metadata: { toolName: "issue_refund" } }],
    });
    const interrupt = (finished.outcome as { interrupts: Array<{ id: string; toolCallId: string }> }).interrupts[0]!;

    const runId = `r-${randomUUID()}`;
    const resume = [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }];
    const second = await post({ threadId, runId, messages: [userMessage("refund order 77")], resume });
    expect(second.map((e) => e.type).slice(0, 2)).toEqual([EventType.RUN_STARTED, EventType.TOOL_CALL_RESULT]);
    expect(second[1]).toMatchObject({ toolCallId: interrupt.toolCallId, content: expect.stringContaining('"status":"issued"') });
    expect(second.filter((e) => e.type === EventType.RUN_STARTED)).toHaveLength(1);
    expect(second.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success" } });
    // The agent saw the answer in its messages, and was not handed the resume it cannot act on.
    expect(seen.at(-1)!.find((m) => m.role === "tool")).toMatchObject({ toolCallId: interrupt.toolCallId });
    expect(await services.approvals.get(interrupt.id)).toMatchObject({ status: "consumed", answeredRunId: runId });

    // A replayed resume is answered from the record: the refund does not run again.
    const replay = await post({ threadId, runId: `r-${randomUUID()}`, messages: [userMessage("refund order 77")], resume });
    const result = replay.find((e) => e.type === EventType.TOOL_CALL_RESULT);
    expect(result).toMatchObject({ content: (second[1] as { content: string }).content });
    expect((await services.approvals.events(interrupt.id)).filter((e) => e.type === "ran")).toHaveLength(1);
  });

  it("while an interrupt stays open the agent is not run: the bridge ends the run with it again", async () => {
    const threadId = `t-${randomUUID()}`;
    const first = await post({ threadId, runId: `r-${randomUUID()}`, messages: [userMessage("refund order 77")] });
    const interrupt = (first.at(-1) as { outcome: { interrupts: Array<{ id: string }> } }).outcome.interrupts[0]!.id;
    const runs = seen.length;
    const again = await post({ threadId, runId: `r-${randomUUID()}`, messages: [userMessage("and now?")] });
    expect(seen.length).toBe(runs);
    expect(again.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "interrupt", interrupts: [{ id: interrupt }] } });
  });
});
