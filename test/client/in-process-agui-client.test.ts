import { type BaseEvent, EventType, type RunAgentInput } from "@ag-ui/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentStreamError, InProcessAGUIClient } from "@/lib/client";
import { ev, scriptedAgent } from "./fixtures";

const input: RunAgentInput = { threadId: "t1", runId: "r1", messages: [], tools: [], context: [] };

async function collect(client: InProcessAGUIClient, signal?: AbortSignal): Promise<{ events: BaseEvent[]; error?: Error }> {
  const events: BaseEvent[] = [];
  try {
    for await (const event of client.stream(input, { signal })) events.push(event);
    return { events };
  } catch (error) {
    return { events, error: error as Error };
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("InProcessAGUIClient", () => {
  it("yields the agent's events, skips invalid ones with a warning, expands chunks", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const agent = scriptedAgent([
      ev.runStarted(),
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 7 } as unknown as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CHUNK, messageId: "m1", delta: "hi" } as BaseEvent,
      ev.runFinished(),
    ]);
    const { events, error } = await collect(new InProcessAGUIClient(agent));
    expect(error).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(warn).toHaveBeenCalledOnce();
    expect(agent.inputs).toEqual([input]);
  });

  it("an agent that stops before its terminal event gives AgentStreamError(eof)", async () => {
    const { error } = await collect(new InProcessAGUIClient(scriptedAgent([ev.runStarted()])));
    expect(error).toBeInstanceOf(AgentStreamError);
    expect((error as AgentStreamError).reason).toBe("eof");
  });

  it("an event out of order gives AgentStreamError(protocol)", async () => {
    const { events, error } = await collect(new InProcessAGUIClient(scriptedAgent([ev.runStarted(), ev.runStarted("r2")])));
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED"]);
    expect((error as AgentStreamError).reason).toBe("protocol");
  });

  it("aborting the signal ends a busy agent promptly and runs its finally", async () => {
    const agent = scriptedAgent([ev.runStarted(), "hang"]);
    const controller = new AbortController();
    const pending = collect(new InProcessAGUIClient(agent), controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    const { events, error } = await pending;
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED"]);
    expect(error?.name).toBe("AbortError");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(agent.closed).toBe(1);
  });

  it("aclose() cancels runs in flight, is idempotent, and refuses new runs", async () => {
    const client = new InProcessAGUIClient(scriptedAgent([ev.runStarted(), "hang"]));
    const pending = collect(client);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await client.aclose();
    await client.aclose();
    expect(((await pending).error as AgentStreamError).reason).toBe("closed");
    expect(((await collect(client)).error as AgentStreamError).reason).toBe("closed");
  });
});
