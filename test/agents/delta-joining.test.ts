import { EventType, type AGUIEvent } from "@ag-ui/core";
import { AIMessageChunk } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { LOCAL_PRINCIPAL } from "@/lib/auth";
import { agentFunction, type Agent } from "@/lib/agents";
import { GraphEvents } from "@/lib/agents/frameworks/langgraph/graph-events";
import { testServices } from "../support/services";

const info = {
  name: "words",
  description: "streams words",
  model: "none",
  capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false },
};

function wordsAgent(count: number, streamDelayMs = 0) {
  return agentFunction(
    info,
    async (run) => {
      const item = run.openText();
      for (let i = 0; i < count; i++) await item.append(`w${i} `);
      item.close();
    },
    { streamDelayMs },
  );
}

const input = (id: string) => ({
  threadId: `t-${id}`,
  runId: `r-${id}`,
  messages: [],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
});

/** Run `agent` and read its events only once it has finished: every delta found its predecessor waiting. */
async function readWhenDone(agent: Agent, id: string): Promise<AGUIEvent[]> {
  const services = testServices();
  const events = agent.run(input(id), {
    principal: LOCAL_PRINCIPAL,
    signal: new AbortController().signal,
    executor: services.executor,
    logger: services.logger,
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const all: AGUIEvent[] = [];
  for await (const event of events) all.push(event);
  services.close();
  return all;
}

describe("content deltas while the reader is behind", () => {
  it("join the delta still waiting in the queue (at most 32 per event), and the text is unchanged", async () => {
    const all = await readWhenDone(wordsAgent(100), "behind");
    const contents = all.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT) as Array<{ delta: string }>;
    expect(contents.length).toBe(Math.ceil(100 / 32));
    expect(contents.map((e) => e.delta).join("")).toBe(Array.from({ length: 100 }, (_, i) => `w${i} `).join(""));
  });

  it("go out one by one to a reader that keeps up (a model that streams slower than it reads)", async () => {
    const services = testServices();
    const events = wordsAgent(20, 2).run(input("keeps-up"), {
      principal: LOCAL_PRINCIPAL,
      signal: new AbortController().signal,
      executor: services.executor,
      logger: services.logger,
    });
    let contents = 0;
    for await (const event of events) if (event.type === EventType.TEXT_MESSAGE_CONTENT) contents++;
    expect(contents).toBe(20);
    services.close();
  });

  it("join for a LangGraph graph's model tokens too (mapped from the graph's stream), per message", async () => {
    const words = (id: string) => Array.from({ length: 100 }, (_, i) => `${id}${i} `);
    // What graph.stream(..., { streamMode: "messages" }) yields for two streamed answers, one after the other.
    const agent = agentFunction(info, async (run) => {
      const events = new GraphEvents(run, new Set());
      for (const id of ["a", "b"]) for (const word of words(id)) events.take(["messages", [new AIMessageChunk({ id, content: word }), {}]]);
      events.close();
    });
    const all = await readWhenDone(agent, "graph");
    const contents = all.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT) as Array<{ messageId: string; delta: string }>;
    expect(contents.length).toBe(2 * Math.ceil(100 / 32));
    for (const id of ["a", "b"])
      expect(
        contents
          .filter((e) => e.messageId === id)
          .map((e) => e.delta)
          .join(""),
      ).toBe(words(id).join(""));
    expect(all.filter((e) => e.type === EventType.TEXT_MESSAGE_START).map((e) => (e as { messageId: string }).messageId)).toEqual([
      "a",
      "b",
    ]);
  });
});
