import { randomUUID } from "node:crypto";
import { EventType, type AGUIEvent, type RunAgentInput } from "@ag-ui/core";
import { afterAll, describe, expect, it } from "vitest";
import type { Agent } from "@/lib/agents";
import { LOCAL_PRINCIPAL } from "@/lib/auth/principal";
import { parseFrames, userMessage } from "../support/agui-client";
import { testServices } from "../support/services";

// Straight through the bridge, past any limit the HTTP endpoint puts on a body's depth: the
// run's end must be recorded whatever the input holds.
const services = testServices({ AGENT_STREAM_DELAY_MS: "0" });
afterAll(() => services.close());

/** An object nested `depth` levels: {a: {a: {...}}}. */
function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 0; i < depth; i++) at = (at.a = {}) as Record<string, unknown>;
  return root;
}

function inputWith(fields: Partial<RunAgentInput>): RunAgentInput {
  return {
    threadId: `t-${randomUUID()}`,
    runId: `r-${randomUUID()}`,
    messages: [userMessage("hello")],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
    ...fields,
  };
}

async function runThrough(agent: Agent, input: RunAgentInput): Promise<AGUIEvent[]> {
  const run = await services.bridge.open(agent, input, LOCAL_PRINCIPAL);
  let raw = "";
  for await (const chunk of run.stream(new AbortController().signal)) raw += chunk;
  return parseFrames(raw);
}

describe("a run always ends in a recorded final state", () => {
  it("a shared state nested 5,000 levels: the run ends, is recorded as error, and keeps its events", async () => {
    const input = inputWith({ state: nested(5000) });
    const events = await runThrough(services.agents.default, input);
    expect(events.at(-1)?.type).toMatch(/^RUN_(FINISHED|ERROR)$/);
    const run = await services.runs.getRun(input.runId);
    expect(run).toMatchObject({ status: "error", finishedAt: expect.any(Number) });
    // The state it was given could not be serialised either: the run keeps none rather than failing to start.
    expect(run?.inputState).toBeNull();
    expect(await services.runs.events(input.runId)).toHaveLength(events.length);
    // The thread keeps what it had (nothing): the state that could not be stored is not half-written.
    expect((await services.runs.getThread(input.threadId))?.state).toBeNull();
  });

  it("an agent event that cannot be serialised ends the run with RUN_ERROR; the wire and the record agree", async () => {
    const deep: Agent = {
      info: {
        name: "deep",
        description: "sends a state snapshot nested too deeply",
        model: "none",
        capabilities: { tools: false, clientTools: false, approvals: false, sharedState: true, reasoning: false },
      },
      async *run(input) {
        yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId } as AGUIEvent;
        yield { type: EventType.STEP_STARTED, stepName: "think" } as AGUIEvent;
        yield { type: EventType.STATE_SNAPSHOT, snapshot: nested(20_000) } as AGUIEvent;
        yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId } as AGUIEvent;
      },
    };
    const input = inputWith({ state: { kept: true } });
    const events = await runThrough(deep, input);
    expect(events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.STEP_STARTED, EventType.RUN_ERROR]);
    expect(await services.runs.getRun(input.runId)).toMatchObject({ status: "error" });
    expect((await services.runs.events(input.runId)).map((e) => e.type)).toEqual(events.map((e) => e.type));
    expect((await services.runs.getThread(input.threadId))?.state).toEqual({ kept: true });
  });
});
