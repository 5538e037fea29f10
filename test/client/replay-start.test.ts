// A recorded run replayed into a fresh store (the run page) keeps the conversation's order: the
// messages it started from come first. The runs are real: the real @ag-ui/client posts to the
// console's AG-UI endpoint over HTTP, and the events are read back from the run's record.
import type { BaseEvent } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentState, type AgentClient } from "@/lib/client";
import { replayStart, runStartId } from "@/lib/client/replay-start";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { observeRun, RecordingAgent, userMessage } from "../support/agui-client";

const NO_CLIENT: AgentClient = {
  stream: () => {
    throw new Error("replay only");
  },
  aclose: async () => {},
};

/** The messages a store shows after `events`, started from `start`: role and text, in order. */
function replayed(events: BaseEvent[], seeded: boolean, inputState?: unknown): Array<[string, string]> {
  const state = new AgentState({ client: NO_CLIENT });
  state.loadThread({ messages: seeded ? replayStart(events) : [], state: inputState ?? undefined });
  for (const event of events) state.apply(event);
  return state
    .getSnapshot()
    .messages.filter((m) => m.role === "user" || m.role === "assistant" || m.role === "tool")
    .map((m) => [m.role, typeof m.content === "string" ? m.content.slice(0, 40) : ""]);
}

describe("replaying a recorded run", () => {
  let server: AguiTestServer;
  beforeAll(async () => {
    server = await startAguiServer();
  });
  afterAll(() => server.close());

  it("shows the conversation it started from before what it streamed, in the snapshot's order", async () => {
    const agent = new RecordingAgent(server.url);
    agent.addMessage(userMessage("what is the weather in Paris"));
    await observeRun(agent);
    agent.addMessage(userMessage("calculate 6 * 7"));
    const second = await observeRun(agent);
    await server.services.runs.flush();
    const events = (await server.services.runs.events(second.input.runId)) as BaseEvent[];

    const start = replayStart(events);
    // The first run's question and answer, then the second question; nothing the second run streamed.
    expect(start.map((m) => m.role)).toEqual(["user", "reasoning", "assistant", "tool", "assistant", "user"]);
    expect(start.at(-1)).toMatchObject({ role: "user", content: "calculate 6 * 7" });

    const given = (await server.services.runs.getRun(second.input.runId))?.inputState;
    const seeded = replayed(events, true, given);
    expect(seeded[0]).toEqual(["user", "what is the weather in Paris"]);
    const question = seeded.findIndex(([role, text]) => role === "user" && text === "calculate 6 * 7");
    const answer = seeded.findIndex(([role, text]) => role === "assistant" && text.includes("42"));
    expect(question).toBeGreaterThan(0);
    expect(answer).toBeGreaterThan(question);
    // Without the start, the snapshot puts what the store had not seen (both questions) last.
    const empty = replayed(events, false, given);
    expect(empty.at(-1)?.[0]).toBe("user");

    // The run is marked from its question; the first run of a thread has nothing before it.
    expect(runStartId(start, start)).toBe(start.at(-1)!.id);
    const first = (await server.services.runs.events(agent.exchanges[0]!.input.runId)) as BaseEvent[];
    expect(runStartId(replayStart(first), [])).toBeUndefined();
  });

  it("ends in the state the run ended in when it starts from the state the run was given", async () => {
    const agent = new RecordingAgent(server.url);
    agent.addMessage(userMessage("what is the weather in Paris"));
    await observeRun(agent);
    agent.addMessage(userMessage("calculate 6 * 7"));
    await observeRun(agent);
    agent.addMessage(userMessage("calculate 2 + 2"));
    const third = await observeRun(agent);
    await server.services.runs.flush();
    const run = await server.services.runs.getRun(third.input.runId);
    const events = (await server.services.runs.events(third.input.runId)) as BaseEvent[];
    // The run was given the state the earlier runs left, and patched it (the demo lists the tool calls it answered).
    expect(run?.inputState).toEqual(third.input.state);
    expect((run?.inputState as { actions?: unknown[] }).actions?.length).toBeGreaterThan(0);
    expect(events.some((event) => event.type === "STATE_DELTA")).toBe(true);

    const replay = (state: unknown) => {
      const store = new AgentState({ client: NO_CLIENT });
      store.loadThread({ messages: replayStart(events), state });
      for (const event of events) store.apply(event);
      return store.getSnapshot().state;
    };
    expect(agent.state).toMatchObject({ actions: expect.any(Array) });
    expect(replay(run!.inputState)).toEqual(agent.state);
    // From nothing, a patch of the earlier runs' actions does not apply (the store warns and keeps what it has).
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      expect(replay(undefined)).not.toEqual(agent.state);
      expect(warn).toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("starts from nothing when the record holds no snapshot (a run still going)", () => {
    expect(replayStart([{ type: "RUN_STARTED", threadId: "t", runId: "r" } as BaseEvent])).toEqual([]);
  });
});
