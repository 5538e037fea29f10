import { type BaseEvent, EventType } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import { AgentState } from "@/lib/client";
import { ev, scriptedAgent } from "./fixtures";

const refundInterrupts = [
  { id: "i1", reason: "tool_call", toolCallId: "c1", message: "Approve refund?", metadata: { toolName: "refund" } },
  { id: "i2", reason: "tool_call", toolCallId: "c2", message: "Approve email?" },
];

function interruptedRun(): BaseEvent[] {
  return [
    ev.runStarted("r1"),
    ev.text("m1", "I will refund and email."),
    ...ev.toolCall("c1", "refund", ['{"order":"A1"}'], "m1"),
    ...ev.toolCall("c2", "email", ['{"to":"x@y.z"}'], "m1"),
    { type: EventType.STATE_SNAPSHOT, snapshot: { stage: "approval" } } as BaseEvent,
    ev.runFinished("r1", ev.interrupt(refundInterrupts)),
  ].flat();
}

describe("AgentState runs", () => {
  it("send() posts the whole history with a new run id, state and client tools, and no resume", async () => {
    const agent = scriptedAgent([ev.runStarted("r1"), ev.text("m1", "Hi!"), ev.runFinished("r1")].flat(), [
      ev.runStarted("r2"),
      ev.runFinished("r2"),
    ]);
    const tools = [{ name: "pick_color", description: "Ask the user for a color", parameters: { type: "object" } }];
    const s = new AgentState({ agent, threadId: "t1", tools, state: { mood: "calm" } });
    await s.send("hello");
    await s.send("again");
    expect(agent.inputs).toHaveLength(2);
    const [first, second] = agent.inputs;
    expect(first).toMatchObject({ threadId: "t1", state: { mood: "calm" }, tools, context: [], forwardedProps: {} });
    expect(first?.messages).toEqual([{ id: expect.any(String), role: "user", content: "hello" }]);
    expect(first).not.toHaveProperty("resume");
    expect(second?.runId).not.toBe(first?.runId);
    expect(second?.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "hello"],
      ["assistant", "Hi!"],
      ["user", "again"],
    ]);
    expect(RunAgentInputSchema.safeParse(second).success).toBe(true);
    expect(s.getSnapshot().status).toBe("finished");
  });

  it("an interrupt outcome opens interrupts and marks their calls awaiting approval", async () => {
    const s = new AgentState({ agent: scriptedAgent(interruptedRun()), threadId: "t1" });
    await s.send("refund order A1 and tell them");
    const snap = s.getSnapshot();
    expect(snap.status).toBe("awaiting_input");
    expect(snap.interrupts.map((open) => open.interrupt.id)).toEqual(["i1", "i2"]);
    expect(snap.toolCalls.get("c1")).toMatchObject({ status: "awaiting_approval", interruptId: "i1", args: { order: "A1" } });
    expect(snap.toolCalls.get("c2")).toMatchObject({ status: "awaiting_approval", interruptId: "i2" });
    await expect(s.send("and another thing")).rejects.toThrow(/open interrupts/);
  });

  it("resolve and cancel send exactly one resume covering every interrupt, once all are answered", async () => {
    const agent = scriptedAgent(
      interruptedRun(),
      [
        ev.runStarted("r2"),
        ev.toolResult("c1", JSON.stringify({ ok: true, value: { refunded: 20 } })),
        ev.toolResult("c2", JSON.stringify({ ok: false, error: { kind: "cancelled", message: "Cancelled by the user" } })),
        ev.text("m2", "Refunded; no email sent."),
        ev.runFinished("r2"),
      ].flat(),
    );
    const s = new AgentState({ agent, threadId: "t1" });
    await s.send("refund order A1 and tell them");

    await s.resolve("i1", { approved: true });
    expect(agent.inputs).toHaveLength(1);
    expect(s.getSnapshot().interrupts[0]?.answer).toEqual({ status: "resolved", payload: { approved: true } });

    await s.cancel("i2");
    expect(agent.inputs).toHaveLength(2);
    const resumed = agent.inputs[1]!;
    expect(resumed.resume).toEqual([
      { interruptId: "i1", status: "resolved", payload: { approved: true } },
      { interruptId: "i2", status: "cancelled" },
    ]);
    expect(resumed.runId).not.toBe(agent.inputs[0]!.runId);
    expect(resumed.state).toEqual({ stage: "approval" });
    const assistant = resumed.messages.find((m) => m.id === "m1");
    expect(assistant).toEqual({
      id: "m1",
      role: "assistant",
      content: "I will refund and email.",
      toolCalls: [
        { id: "c1", type: "function", function: { name: "refund", arguments: '{"order":"A1"}' } },
        { id: "c2", type: "function", function: { name: "email", arguments: '{"to":"x@y.z"}' } },
      ],
    });

    const snap = s.getSnapshot();
    expect(snap.status).toBe("finished");
    expect(snap.interrupts).toEqual([]);
    expect(snap.toolCalls.get("c1")).toMatchObject({ status: "succeeded", result: { refunded: 20 } });
    expect(snap.toolCalls.get("c2")).toMatchObject({ status: "cancelled" });

    // The next run carries the tool messages in the history, and no resume.
    await s.send("thanks").catch(() => undefined);
    const third = agent.inputs[2]!;
    expect(third).not.toHaveProperty("resume");
    expect(third.messages.filter((m) => m.role === "tool").map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(["c1", "c2"]);
  });

  it("an expired interrupt can only be cancelled; unknown ids are refused", async () => {
    const agent = scriptedAgent(
      [
        ev.runStarted("r1"),
        ...ev.toolCall("c1", "refund", ["{}"]),
        ev.runFinished("r1", ev.interrupt([{ id: "i1", reason: "tool_call", toolCallId: "c1", expiresAt: "2000-01-01T00:00:00Z" }])),
      ],
      [ev.runStarted("r2"), ev.runFinished("r2")],
    );
    const s = new AgentState({ agent, threadId: "t1" });
    await s.send("refund");
    await expect(s.resolve("i1", { approved: true })).rejects.toThrow(/expired/);
    await expect(s.cancel("nope")).rejects.toThrow(/No open interrupt/);
    expect(agent.inputs).toHaveLength(1);
    await s.cancel("i1");
    expect(agent.inputs[1]?.resume).toEqual([{ interruptId: "i1", status: "cancelled" }]);
  });

  it("an approval that expires while the other interrupts are answered is refused before sending", async () => {
    let clock = Date.parse("2030-01-01T00:00:00Z");
    const agent = scriptedAgent(
      interruptedRun().map((event) =>
        event.type === EventType.RUN_FINISHED
          ? ev.runFinished("r1", ev.interrupt([{ ...refundInterrupts[0]!, expiresAt: "2030-01-01T00:01:00Z" }, refundInterrupts[1]!]))
          : event,
      ),
      [ev.runStarted("r2"), ev.runFinished("r2")],
    );
    const s = new AgentState({ agent, threadId: "t1", now: () => clock });
    await s.send("refund");
    await s.resolve("i1", { approved: true });
    clock += 120_000;
    await expect(s.cancel("i2")).rejects.toThrow(/i1 expired .* before the resume was sent/);
    expect(agent.inputs).toHaveLength(1);
    expect(s.getSnapshot().interrupts.map((open) => open.answer)).toEqual([undefined, { status: "cancelled" }]);
    await s.cancel("i1");
    expect(agent.inputs[1]?.resume).toEqual([
      { interruptId: "i1", status: "cancelled" },
      { interruptId: "i2", status: "cancelled" },
    ]);
  });

  it("stop() aborts the running stream within the agent and marks the run cancelled", async () => {
    const agent = scriptedAgent([ev.runStarted("r1"), ...ev.toolCall("c1", "slow", ["{}"]), "hang"]);
    const s = new AgentState({ agent, threadId: "t1" });
    const running = s.send("go slow");
    await waitFor(() => s.getSnapshot().toolCalls.get("c1")?.status === "running");
    s.stop();
    await running;
    const snap = s.getSnapshot();
    expect(snap.status).toBe("cancelled");
    expect(snap.error).toBeUndefined();
    expect(snap.toolCalls.get("c1")?.status).toBe("cancelled");
    expect(agent.closed).toBe(1);
  });

  it("a transport failure lands in error (never a synthetic RUN_ERROR), and retry() runs again", async () => {
    const agent = scriptedAgent([ev.runStarted("r1"), ev.text("m1", "half").slice(0, 2)].flat(), [
      ev.runStarted("r2"),
      ev.runFinished("r2"),
    ]);
    const s = new AgentState({ agent, threadId: "t1" });
    await s.send("hi");
    expect(s.getSnapshot()).toMatchObject({ status: "error", error: { source: "transport", name: "AgentStreamError", reason: "eof" } });
    expect(s.getSnapshot().messages.find((m) => m.id === "m1")?.streaming).toBe(false);
    await s.retry();
    expect(s.getSnapshot().status).toBe("finished");
    expect(s.getSnapshot().error).toBeUndefined();
  });

  it("loadThread() hydrates history, state and open interrupts from the server", async () => {
    const agent = scriptedAgent([ev.runStarted("r9"), ev.runFinished("r9")]);
    const s = new AgentState({ agent });
    s.loadThread({
      threadId: "stored",
      state: { cart: 2 },
      messages: [
        { id: "u1", role: "user", content: "weather and refund" },
        {
          id: "a1",
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
            { id: "c2", type: "function", function: { name: "refund", arguments: '{"order":"A1"}' } },
          ],
        },
        { id: "t1", role: "tool", toolCallId: "c1", content: '{"ok":true,"value":"4C"}' },
      ],
      interrupts: [{ id: "i2", reason: "tool_call", toolCallId: "c2" }],
    });
    const snap = s.getSnapshot();
    expect(snap).toMatchObject({ threadId: "stored", status: "awaiting_input", state: { cart: 2 } });
    expect(snap.messages.map((m) => m.id)).toEqual(["u1", "a1", "t1"]);
    expect(snap.toolCalls.get("c1")).toMatchObject({ status: "succeeded", result: "4C", args: { city: "Oslo" } });
    expect(snap.toolCalls.get("c2")).toMatchObject({ status: "awaiting_approval", interruptId: "i2" });
    await s.resolve("i2", { approved: true });
    expect(agent.inputs[0]).toMatchObject({
      threadId: "stored",
      state: { cart: 2 },
      resume: [{ interruptId: "i2", status: "resolved", payload: { approved: true } }],
    });
    expect(agent.inputs[0]?.messages).toHaveLength(3);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("AgentState while events arrive faster than they are applied", () => {
  it("gives the event loop a turn every few milliseconds, and still applies every event in order", async () => {
    const deltas = Array.from({ length: 200 }, (_, i) => `w${i} `);
    const events = [ev.runStarted(), ...ev.text("m1", ...deltas), ev.runFinished()];
    let applied = 0;
    // One chunk's worth of events, none of them waiting on anything: all within one task unless the run yields.
    const client = {
      async *stream() {
        for (const event of events) {
          const until = performance.now() + 0.2;
          while (performance.now() < until);
          applied += 1;
          yield event;
        }
      },
      aclose: async () => {},
    };
    const state = new AgentState({ client, threadId: "t1" });
    let appliedWhenTimerRan: number | undefined;
    setTimeout(() => (appliedWhenTimerRan = applied), 0);
    await state.send("go");
    expect(appliedWhenTimerRan).toBeLessThan(events.length);
    expect(state.getSnapshot().status).toBe("finished");
    expect(state.getSnapshot().messages.at(-1)!.content).toBe(deltas.join(""));
  });
});
