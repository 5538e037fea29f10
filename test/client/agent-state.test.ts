import { type BaseEvent, EventType } from "@ag-ui/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentState } from "@/lib/client";
import { ev, feed, scriptedAgent } from "./fixtures";

function store(options: { onCustomEvent?: (e: { name: string; value: unknown }) => void; state?: unknown } = {}) {
  let clock = 1_000;
  const state = new AgentState({ agent: scriptedAgent(), threadId: "t1", now: () => (clock += 10), ...options });
  return state;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("AgentState applies the run lifecycle", () => {
  it("RUN_STARTED → running, RUN_FINISHED without outcome → finished", () => {
    const s = store();
    expect(s.getSnapshot().status).toBe("idle");
    feed(s, ev.runStarted("r1"));
    expect(s.getSnapshot()).toMatchObject({ status: "running", runId: "r1" });
    feed(s, ev.runFinished("r1"));
    expect(s.getSnapshot().status).toBe("finished");
  });

  it("RUN_FINISHED with the cancelled outcome → cancelled, and cancels calls left running", () => {
    const s = store();
    feed(s, ev.runStarted(), ev.toolCall("c1", "slow", ['{"n":1}']), ev.runFinished("r1", { type: "cancelled" }));
    const snap = s.getSnapshot();
    expect(snap.status).toBe("cancelled");
    expect(snap.toolCalls.get("c1")).toMatchObject({ status: "cancelled", error: { kind: "cancelled" } });
  });

  it("RUN_ERROR → error with message and code; open items end", () => {
    const s = store();
    feed(
      s,
      ev.runStarted(),
      { type: EventType.TEXT_MESSAGE_START, messageId: "m1" } as BaseEvent,
      ev.toolCall("c1", "t", []),
      ev.runError("model unavailable", "upstream"),
    );
    const snap = s.getSnapshot();
    expect(snap.status).toBe("error");
    expect(snap.error).toEqual({ source: "run", name: "RunError", message: "model unavailable", code: "upstream" });
    expect(snap.messages.find((m) => m.id === "m1")?.streaming).toBe(false);
    expect(snap.toolCalls.get("c1")?.status).toBe("failed");
  });

  it("STEP_STARTED / STEP_FINISHED → currentStep (innermost open step)", () => {
    const s = store();
    feed(s, ev.runStarted(), { type: EventType.STEP_STARTED, stepName: "plan" } as BaseEvent);
    expect(s.getSnapshot().currentStep).toBe("plan");
    feed(s, { type: EventType.STEP_STARTED, stepName: "search" } as BaseEvent);
    expect(s.getSnapshot().currentStep).toBe("search");
    feed(s, { type: EventType.STEP_FINISHED, stepName: "search" } as BaseEvent);
    expect(s.getSnapshot().currentStep).toBe("plan");
    feed(s, { type: EventType.STEP_FINISHED, stepName: "plan" } as BaseEvent);
    expect(s.getSnapshot().currentStep).toBeUndefined();
  });
});

describe("AgentState applies messages", () => {
  it("TEXT_MESSAGE_* streams an assistant message", () => {
    const s = store();
    feed(s, ev.runStarted(), ev.text("m1", "Hel", "lo").slice(0, 3));
    expect(s.getSnapshot().messages).toEqual([{ id: "m1", role: "assistant", content: "Hello", streaming: true }]);
    feed(s, { type: EventType.TEXT_MESSAGE_END, messageId: "m1" } as BaseEvent, ev.runFinished());
    expect(s.getSnapshot().messages).toEqual([{ id: "m1", role: "assistant", content: "Hello", streaming: false }]);
  });

  it("REASONING_* becomes a reasoning entry before the answer; encrypted values are not kept", () => {
    const s = store();
    feed(
      s,
      ev.runStarted(),
      { type: EventType.REASONING_START, messageId: "rs1" } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_START, messageId: "rm1", role: "reasoning" } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_CONTENT, messageId: "rm1", delta: "Think " } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_CONTENT, messageId: "rm1", delta: "first." } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_END, messageId: "rm1" } as BaseEvent,
      { type: EventType.REASONING_ENCRYPTED_VALUE, subtype: "message", entityId: "rm1", encryptedValue: "opaque" } as BaseEvent,
      { type: EventType.REASONING_END, messageId: "rs1" } as BaseEvent,
      ev.text("m1", "Answer"),
      ev.runFinished(),
    );
    expect(s.getSnapshot().messages).toEqual([
      { id: "rm1", role: "reasoning", content: "Think first.", streaming: false },
      { id: "m1", role: "assistant", content: "Answer", streaming: false },
    ]);
    expect(JSON.stringify(s.getSnapshot())).not.toContain("opaque");
  });

  it("MESSAGES_SNAPSHOT replaces by id in place, appends the unseen, drops the absent but keeps reasoning", () => {
    const s = store();
    feed(
      s,
      ev.runStarted(),
      { type: EventType.TEXT_MESSAGE_START, messageId: "u1", role: "user" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "u1", delta: "hi" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_END, messageId: "u1" } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_START, messageId: "rm1", role: "reasoning" } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_END, messageId: "rm1" } as BaseEvent,
      ev.text("gone", "draft"),
      ev.text("m1", "partial"),
      {
        type: EventType.MESSAGES_SNAPSHOT,
        messages: [
          { id: "u1", role: "user", content: "hi" },
          {
            id: "m1",
            role: "assistant",
            content: "final text",
            toolCalls: [{ id: "c9", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }],
          },
          { id: "tm9", role: "tool", toolCallId: "c9", content: '{"ok":true,"value":{"temp":4}}' },
          { id: "m2", role: "assistant", content: "It is 4 degrees." },
        ],
      } as BaseEvent,
    );
    const snap = s.getSnapshot();
    expect(snap.messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ["u1", "user", "hi"],
      ["rm1", "reasoning", ""],
      ["m1", "assistant", "final text"],
      ["tm9", "tool", '{"ok":true,"value":{"temp":4}}'],
      ["m2", "assistant", "It is 4 degrees."],
    ]);
    expect(snap.messages[2]?.toolCallIds).toEqual(["c9"]);
    expect(snap.toolCalls.get("c9")).toMatchObject({ name: "weather", args: { city: "Oslo" }, status: "succeeded", result: { temp: 4 } });
    // The index follows the new order: a later delta lands on the right message.
    feed(
      s,
      { type: EventType.TEXT_MESSAGE_START, messageId: "m2" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m2", delta: " Dress warmly." } as BaseEvent,
    );
    expect(s.getSnapshot().messages[4]?.content).toBe("It is 4 degrees. Dress warmly.");
  });

  it("a MESSAGES_SNAPSHOT that carries reasoning owns reasoning: absent reasoning goes", () => {
    const s = store();
    feed(
      s,
      ev.runStarted(),
      { type: EventType.REASONING_MESSAGE_START, messageId: "rm1", role: "reasoning" } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_END, messageId: "rm1" } as BaseEvent,
      { type: EventType.MESSAGES_SNAPSHOT, messages: [{ id: "rm2", role: "reasoning", content: "kept by the server" }] } as BaseEvent,
    );
    expect(s.getSnapshot().messages.map((m) => m.id)).toEqual(["rm2"]);
  });
});

describe("AgentState applies tool calls", () => {
  it("streams arguments as text, parses them at the end, and times the call", () => {
    const s = store();
    feed(s, ev.runStarted(), ev.text("m1", "Let me check."), ev.toolCall("c1", "weather", ['{"ci', 'ty":"Oslo"}'], "m1").slice(0, 2));
    expect(s.getSnapshot().toolCalls.get("c1")).toMatchObject({
      name: "weather",
      argsText: '{"ci',
      status: "streaming_args",
      parentMessageId: "m1",
    });
    expect(s.getSnapshot().toolCalls.get("c1")?.args).toBeUndefined();
    feed(
      s,
      { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: 'ty":"Oslo"}' } as BaseEvent,
      { type: EventType.TOOL_CALL_END, toolCallId: "c1" } as BaseEvent,
    );
    expect(s.getSnapshot().toolCalls.get("c1")).toMatchObject({ argsText: '{"city":"Oslo"}', args: { city: "Oslo" }, status: "running" });
    feed(s, ev.toolResult("c1", JSON.stringify({ ok: true, value: { temp: 4 } })));
    const snap = s.getSnapshot();
    expect(snap.toolCalls.get("c1")).toMatchObject({ status: "succeeded", result: { temp: 4 }, durationMs: 10 });
    expect(snap.messages.map((m) => m.id)).toEqual(["m1", "res-c1"]);
    expect(snap.messages[0]?.toolCallIds).toEqual(["c1"]);
    expect(snap.messages[1]).toMatchObject({ role: "tool", toolCallId: "c1" });
  });

  it("a call without a parent message gets an assistant message of its own", () => {
    const s = store();
    feed(s, ev.runStarted(), ev.toolCall("c1", "t", ["{}"]));
    expect(s.getSnapshot().messages).toEqual([{ id: "c1", role: "assistant", content: "", toolCallIds: ["c1"], streaming: false }]);
  });

  it("arguments that are not JSON leave args absent with an argsError", () => {
    const s = store();
    feed(s, ev.runStarted(), ev.toolCall("c1", "t", ["{oops"]));
    expect(s.getSnapshot().toolCalls.get("c1")).toMatchObject({ status: "running", args: undefined, argsError: expect.any(String) });
  });

  it.each([
    [
      { ok: false, error: { kind: "denied", message: "The call was denied", reason: "too much" } },
      "denied",
      { kind: "denied", reason: "too much" },
    ],
    [{ ok: false, error: { kind: "cancelled", message: "Cancelled" } }, "cancelled", { kind: "cancelled" }],
    [{ ok: false, error: { kind: "approval_expired", message: "Expired" } }, "cancelled", { kind: "approval_expired" }],
    [{ ok: false, error: { kind: "timeout", message: "Took too long" } }, "failed", { kind: "timeout", message: "Took too long" }],
  ])("a result %j sets status %s", (content, status, error) => {
    const s = store();
    feed(s, ev.runStarted(), ev.toolCall("c1", "refund", ["{}"]), ev.toolResult("c1", JSON.stringify(content)));
    expect(s.getSnapshot().toolCalls.get("c1")).toMatchObject({ status, error });
  });

  it("any other content is a success with the raw content", () => {
    const s = store();
    feed(s, ev.runStarted(), ev.toolCall("c1", "echo", ["{}"]), ev.toolResult("c1", "plain words"));
    expect(s.getSnapshot().toolCalls.get("c1")).toMatchObject({ status: "succeeded", result: "plain words" });
  });
});

describe("AgentState applies state, custom and other events", () => {
  it("STATE_SNAPSHOT replaces, STATE_DELTA patches, a failing patch warns and keeps the prior value", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const s = store({ state: { stale: true } });
    feed(s, ev.runStarted(), { type: EventType.STATE_SNAPSHOT, snapshot: { steps: [{ status: "pending" }] } } as BaseEvent);
    expect(s.getSnapshot().state).toEqual({ steps: [{ status: "pending" }] });
    const before = s.getSnapshot().state;
    feed(s, { type: EventType.STATE_DELTA, delta: [{ op: "replace", path: "/steps/0/status", value: "done" }] } as BaseEvent);
    expect(s.getSnapshot().state).toEqual({ steps: [{ status: "done" }] });
    expect(before).toEqual({ steps: [{ status: "pending" }] });
    const version = s.getSnapshot().version;
    feed(s, { type: EventType.STATE_DELTA, delta: [{ op: "replace", path: "/missing/0", value: 1 }] } as BaseEvent);
    expect(s.getSnapshot().state).toEqual({ steps: [{ status: "done" }] });
    expect(s.getSnapshot().version).toBe(version);
    expect(warn).toHaveBeenCalledOnce();
  });

  it("CUSTOM is recorded and handed to onCustomEvent", () => {
    const seen: unknown[] = [];
    const s = store({ onCustomEvent: (e) => seen.push(e) });
    feed(s, ev.runStarted(), { type: EventType.CUSTOM, name: "PredictState", value: [{ state_key: "doc" }] } as BaseEvent);
    expect(s.getSnapshot().customEvents).toEqual([{ name: "PredictState", value: [{ state_key: "doc" }] }]);
    expect(seen).toEqual([{ name: "PredictState", value: [{ state_key: "doc" }] }]);
  });

  it("ACTIVITY_*, SUBAGENT_*, RAW are accepted with no visible change; unknown types are skipped", () => {
    const debug = vi.spyOn(console, "debug").mockImplementation(() => undefined);
    const s = store();
    feed(s, ev.runStarted());
    const before = s.getSnapshot();
    feed(
      s,
      { type: EventType.ACTIVITY_SNAPSHOT, messageId: "a1", activityType: "plan", content: { x: 1 } } as BaseEvent,
      { type: EventType.ACTIVITY_DELTA, messageId: "a1", activityType: "plan", patch: [] } as BaseEvent,
      { type: EventType.SUBAGENT_STARTED, subagentRunId: "s1", name: "helper" } as BaseEvent,
      { type: EventType.SUBAGENT_FINISHED, subagentRunId: "s1" } as BaseEvent,
      { type: EventType.RAW, event: { any: "thing" } } as BaseEvent,
      { type: "SOMETHING_NEW" } as unknown as BaseEvent,
    );
    expect(s.getSnapshot()).toBe(before);
    expect(debug).toHaveBeenCalledOnce();
  });
});

describe("AgentState snapshots", () => {
  it("getSnapshot returns the same object until something changes, and keeps unchanged entries", () => {
    const s = store();
    const listener = vi.fn();
    const unsubscribe = s.subscribe(listener);
    feed(s, ev.runStarted(), ev.text("m1", "one"), ev.text("m2", "tw"));
    const a = s.getSnapshot();
    expect(s.getSnapshot()).toBe(a);
    const m1 = a.messages[0];
    feed(
      s,
      { type: EventType.TEXT_MESSAGE_START, messageId: "m2" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m2", delta: "o" } as BaseEvent,
    );
    const b = s.getSnapshot();
    expect(b).not.toBe(a);
    expect(b.version).toBeGreaterThan(a.version);
    expect(b.messages[0]).toBe(m1);
    expect(b.messages[1]?.content).toBe("two");
    expect(Object.isFrozen(b)).toBe(true);
    expect(listener).toHaveBeenCalled();
    unsubscribe();
    listener.mockClear();
    feed(s, ev.runFinished());
    expect(listener).not.toHaveBeenCalled();
  });

  it("what a snapshot reached stays as it was while deltas keep streaming (text, arguments, state)", () => {
    const s = store({ state: { log: [] } });
    feed(s, ev.runStarted(), { type: EventType.TEXT_MESSAGE_START, messageId: "m1" } as BaseEvent);
    feed(s, { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "Hel" } as BaseEvent);
    feed(s, { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "search" } as BaseEvent);
    feed(s, { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '{"q":' } as BaseEvent);
    feed(s, { type: EventType.STATE_DELTA, delta: [{ op: "add", path: "/log/-", value: 1 }] } as BaseEvent);
    const a = s.getSnapshot();
    const [message] = a.messages;
    const call = a.toolCalls.get("c1");
    const state = a.state;
    feed(
      s,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "lo" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "!" } as BaseEvent,
      { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '"x"' } as BaseEvent,
      { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: "}" } as BaseEvent,
      { type: EventType.STATE_DELTA, delta: [{ op: "add", path: "/log/-", value: 2 }] } as BaseEvent,
      { type: EventType.STATE_DELTA, delta: [{ op: "add", path: "/log/-", value: 3 }] } as BaseEvent,
    );
    expect(message).toMatchObject({ content: "Hel" });
    expect(call).toMatchObject({ argsText: '{"q":' });
    expect(state).toEqual({ log: [1] });
    const b = s.getSnapshot();
    expect(b.messages[0]).toMatchObject({ content: "Hello!" });
    expect(b.toolCalls.get("c1")).toMatchObject({ argsText: '{"q":"x"}' });
    expect(b.state).toEqual({ log: [1, 2, 3] });
  });

  it("deltas of two messages streaming at once each land in their own message, in order", () => {
    const s = store();
    const delta = (messageId: string, text: string) => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: text }) as BaseEvent;
    feed(
      s,
      ev.runStarted(),
      { type: EventType.TEXT_MESSAGE_START, messageId: "a" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_START, messageId: "b" } as BaseEvent,
      delta("a", "1"),
      delta("a", "2"),
      delta("b", "x"),
      delta("a", "3"),
      delta("b", "y"),
      delta("b", "z"),
      delta("missing", "ignored"),
      { type: EventType.TEXT_MESSAGE_END, messageId: "a" } as BaseEvent,
      delta("b", "!"),
    );
    expect(s.getSnapshot().messages.map((m) => [m.id, m.content, m.streaming])).toEqual([
      ["a", "123", false],
      ["b", "xyz!", true],
    ]);
  });

  it("the state a run sends stays as it was while the run's deltas stream in", async () => {
    const agent = scriptedAgent([
      ev.runStarted(),
      { type: EventType.STATE_DELTA, delta: [{ op: "add", path: "/log/-", value: 1 }] } as BaseEvent,
      ev.runFinished(),
    ]);
    const sent: unknown[] = [];
    const s = new AgentState({
      agent: { run: (input, options) => (sent.push(input.state), agent.run(input, options)) },
      threadId: "t1",
      state: { log: [] },
    });
    feed(s, { type: EventType.STATE_DELTA, delta: [{ op: "add", path: "/log/-", value: 0 }] } as BaseEvent);
    await s.send("go");
    expect(sent).toEqual([{ log: [0] }]);
    expect(s.getSnapshot().state).toEqual({ log: [0, 1] });
  });
});
