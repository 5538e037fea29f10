import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { EventType, type Message } from "@ag-ui/core";
import { AIMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph, interrupt } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_FAILED_MESSAGE, RESUME_IGNORED_EVENT } from "@/lib/agents";
import { AgentStatesSaver, DEFAULT_KEPT_CHECKPOINTS, MESSAGES_NOT_TAKEN_EVENT, langGraphAgent } from "@/lib/agents/frameworks/langgraph";
import type { AgentStates } from "@/lib/db/agent-states";
import type { SqliteServices } from "@/lib/services";
import { eventsOf, expectValidRun, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { tempDir, testServices } from "../support/services";

const AGENT = "langgraph-test";
const PATH = `/api/agui/${AGENT}`;

/** Side effects of the refund node, counted across every graph built in this file. */
let refunds = 0;

/** When set, the refund node stops after the person's answer until the test lets it go on. */
let gate: { reached: () => void; release: Promise<void> } | undefined;

/**
 * A graph with no model: it says what it is about to do, asks the person to confirm with
 * interrupt(), and only then refunds (the side effect counted).
 */
function refundAgent(states: AgentStates) {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("plan", () => ({ messages: [new AIMessage("I can refund order 42 for 30 EUR.")] }))
    .addNode("confirm", async () => {
      const answer = interrupt({
        message: "Refund order 42 for 30 EUR?",
        responseSchema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
      }) as { approved?: boolean };
      if (answer?.approved !== true) return { messages: [new AIMessage("No refund made.")] };
      if (gate) {
        gate.reached();
        await gate.release;
      }
      refunds++;
      return { messages: [new AIMessage("Refunded 30 EUR.")] };
    })
    .addEdge(START, "plan")
    .addEdge("plan", "confirm")
    .addEdge("confirm", END)
    .compile({ checkpointer: new AgentStatesSaver(states, AGENT) });
  return langGraphAgent(
    {
      name: AGENT,
      description: "test graph",
      model: "none",
      capabilities: { tools: false, clientTools: false, approvals: true, sharedState: false, reasoning: false },
    },
    graph,
    { states },
  );
}

const servers: AguiTestServer[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
});

async function start(services?: SqliteServices): Promise<AguiTestServer> {
  const server = await startAguiServer({}, services);
  server.services.agents.add(refundAgent(server.services.agentStates));
  servers.push(server);
  return server;
}

function texts(run: Awaited<ReturnType<typeof observeRun>>): string[] {
  const byId = new Map<string, string>();
  for (const e of eventsOf(run, EventType.TEXT_MESSAGE_CONTENT)) byId.set(e.messageId, (byId.get(e.messageId) ?? "") + e.delta);
  return [...byId.values()];
}

describe("a LangGraph graph behind the AG-UI endpoint", () => {
  it("interrupt() ends the run with an AG-UI interrupt; the resume payload reaches the node and the graph finishes", async () => {
    const server = await start();
    const client = new RecordingAgent(server.url, { path: PATH });
    client.addMessage(userMessage("Refund my order 42"));

    const paused = await observeRun(client);
    expectValidRun(paused);
    expect(texts(paused)).toEqual(["I can refund order 42 for 30 EUR."]);
    expect(eventsOf(paused, EventType.STEP_STARTED).map((e) => e.stepName)).toEqual(["plan", "confirm"]);
    expect(eventsOf(paused, EventType.STEP_FINISHED).map((e) => e.stepName)).toEqual(["plan", "confirm"]);
    const outcome = outcomeOf(paused);
    if (outcome.type !== "interrupt") throw new Error(`expected an interrupt, got ${outcome.type}`);
    const [asked] = outcome.interrupts;
    expect(outcome.interrupts).toHaveLength(1);
    expect(asked).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      reason: "input_required",
      message: "Refund order 42 for 30 EUR?",
      responseSchema: { type: "object", required: ["approved"] },
      metadata: { node: "confirm", value: { message: "Refund order 42 for 30 EUR?" } },
    });
    expect(client.pendingInterrupts.map((i) => i.id)).toEqual([asked!.id]);

    const before = refunds;
    const resumed = await observeRun(client, { resume: [{ interruptId: asked!.id, status: "resolved", payload: { approved: true } }] });
    expectValidRun(resumed);
    expect(outcomeOf(resumed)).toEqual({ type: "success" });
    expect(texts(resumed)).toEqual(["Refunded 30 EUR."]);
    expect(refunds - before).toBe(1);
    // The snapshot is the graph's state: the question's history once, the answer after it.
    expect(client.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "Refund my order 42"],
      ["assistant", "I can refund order 42 for 30 EUR."],
      ["assistant", "Refunded 30 EUR."],
    ]);
    const streamed = eventsOf(resumed, EventType.TEXT_MESSAGE_START)[0]!.messageId;
    expect(client.messages.at(-1)!.id).toBe(streamed);

    // A later run on the thread sends the whole history again: the graph takes none of it twice.
    client.addMessage(userMessage("Thanks"));
    const next = await observeRun(client);
    expectValidRun(next);
    expect(client.messages.filter((m) => m.content === "Refunded 30 EUR.")).toHaveLength(1);
    expect(client.messages.filter((m) => m.content === "Refund my order 42")).toHaveLength(1);
  });

  it("a resume taken twice runs the interrupted node's side effect once: replayed, and two at the same time", async () => {
    const server = await start();
    const client = new RecordingAgent(server.url, { path: PATH });
    client.addMessage(userMessage("Refund my order 42"));
    const paused = await observeRun(client);
    const outcome = outcomeOf(paused);
    if (outcome.type !== "interrupt") throw new Error("expected an interrupt");
    const id = outcome.interrupts[0]!.id;
    const resume = [{ interruptId: id, status: "resolved" as const, payload: { approved: true } }];
    const tab = () => new RecordingAgent(server.url, { path: PATH, threadId: client.threadId, initialMessages: client.messages });
    const before = refunds;

    // Two tabs answer the same pause at once: the first holds the node after the answer, the
    // second comes in meanwhile, while the graph's checkpoint still shows the interrupt open.
    let reached!: () => void;
    let release!: () => void;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    gate = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
    try {
      const first = observeRun(tab(), { resume });
      await atGate;
      const secondRun = observeRun(tab(), { resume });
      // The second tab must not wait on the first: it may not run the node at all.
      const second = await Promise.race([secondRun, sleep(5_000).then(() => undefined)]);
      release();
      if (!second) throw new Error("the second resume ran the interrupted node too");
      expectValidRun(second);
      expect(eventsOf(second, EventType.CUSTOM).map((e) => e.value)).toEqual([
        { interruptId: id, reason: "this interrupt was answered already" },
      ]);
      // The pause is still open while the first tab's run goes on: it is listed again, not dropped.
      const open = outcomeOf(second);
      expect(open.type === "interrupt" && open.interrupts.map((i) => i.id)).toEqual([id]);
      const done = await first;
      expect(outcomeOf(done)).toEqual({ type: "success" });
    } finally {
      release();
      gate = undefined;
    }
    expect(refunds - before).toBe(1);

    // The same request replayed later: the pause is gone, nothing runs again.
    const again = await observeRun(tab(), { resume });
    expectValidRun(again);
    expect(outcomeOf(again)).toEqual({ type: "success" });
    expect(eventsOf(again, EventType.CUSTOM).map((e) => e.value)).toEqual([
      { interruptId: id, reason: "no open interrupt with this id on this thread" },
    ]);
    expect(refunds - before).toBe(1);
  });

  it("a paused graph resumes after the console is closed and reopened on the same database file", async () => {
    const file = path.join(tempDir(), "console.db");
    const first = testServices({ CONSOLE_DB: file, AGENT_STREAM_DELAY_MS: "0" });
    const server = await start(first);
    const client = new RecordingAgent(server.url, { path: PATH });
    client.addMessage(userMessage("Refund my order 42"));
    const outcome = outcomeOf(await observeRun(client));
    if (outcome.type !== "interrupt") throw new Error("expected an interrupt");
    await servers.pop()!.close();
    first.close();

    const second = testServices({ CONSOLE_DB: file, AGENT_STREAM_DELAY_MS: "0" });
    const restarted = await start(second);
    const later = new RecordingAgent(restarted.url, { path: PATH, threadId: client.threadId, initialMessages: client.messages });
    const before = refunds;
    const resumed = await observeRun(later, {
      resume: [{ interruptId: outcome.interrupts[0]!.id, status: "resolved", payload: { approved: true } }],
    });
    expectValidRun(resumed);
    expect(outcomeOf(resumed)).toEqual({ type: "success" });
    expect(texts(resumed)).toEqual(["Refunded 30 EUR."]);
    expect(refunds - before).toBe(1);
    await servers.pop()!.close();
    second.close();
  });

  it("a cancelled resume ends the paused step without running it; the thread goes on with the next message", async () => {
    const server = await start();
    const client = new RecordingAgent(server.url, { path: PATH });
    client.addMessage(userMessage("Refund my order 42"));
    const outcome = outcomeOf(await observeRun(client));
    if (outcome.type !== "interrupt") throw new Error("expected an interrupt");
    const before = refunds;
    const cancelled = await observeRun(client, { resume: [{ interruptId: outcome.interrupts[0]!.id, status: "cancelled" }] });
    expectValidRun(cancelled);
    expect(outcomeOf(cancelled)).toEqual({ type: "success" });
    expect(refunds).toBe(before);
    expect(client.pendingInterrupts).toEqual([]);

    client.addMessage(userMessage("Refund order 43 instead"));
    const next = await observeRun(client);
    expect(texts(next)).toEqual(["I can refund order 42 for 30 EUR."]);
    expect(outcomeOf(next).type).toBe("interrupt");
  });

  it("a new message while the graph waits is not taken: the interrupt is listed again and the client told why", async () => {
    const server = await start();
    const client = new RecordingAgent(server.url, { path: PATH });
    client.addMessage(userMessage("Refund my order 42"));
    const outcome = outcomeOf(await observeRun(client));
    if (outcome.type !== "interrupt") throw new Error("expected an interrupt");
    const id = outcome.interrupts[0]!.id;

    // The real client refuses to send this; another client might.
    const other = new RecordingAgent(server.url, { path: PATH, threadId: client.threadId, initialMessages: client.messages });
    const extra: Message = userMessage("Are you there?");
    other.addMessage(extra);
    const run = await observeRun(other, {
      resume: [{ interruptId: "0123456789abcdef0123456789abcdef", status: "resolved", payload: true }],
    });
    expectValidRun(run);
    const again = outcomeOf(run);
    expect(again.type === "interrupt" && again.interrupts.map((i) => i.id)).toEqual([id]);
    const custom = eventsOf(run, EventType.CUSTOM);
    expect(custom.map((e) => e.name)).toEqual([RESUME_IGNORED_EVENT, MESSAGES_NOT_TAKEN_EVENT]);
    expect(custom[1]!.value).toMatchObject({ messageIds: [extra.id], reason: expect.stringContaining("resume or cancel") });
    expect(other.messages.some((m) => m.id === extra.id)).toBe(false);
    expect(texts(run)).toEqual([]);
  });

  it("a failing node ends the run with RUN_ERROR and the generic message", async () => {
    const server = await start();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("broken", () => {
        throw new Error("secret internal detail");
      })
      .addEdge(START, "broken")
      .compile({ checkpointer: new AgentStatesSaver(server.services.agentStates, "broken-graph") });
    server.services.agents.add(
      langGraphAgent(
        { name: "broken-graph", description: "", model: "none", capabilities: refundAgent(server.services.agentStates).info.capabilities },
        graph,
        {
          states: server.services.agentStates,
        },
      ),
    );
    const client = new RecordingAgent(server.url, { path: "/api/agui/broken-graph" });
    client.addMessage(userMessage("hi"));
    const run = await observeRun(client);
    expectValidRun(run);
    expect(run.error).toMatchObject({ message: AGENT_FAILED_MESSAGE, code: "agent_error" });
    expect(run.raw).not.toContain("secret internal detail");
  });

  it("keeps a bounded checkpoint history per thread in agent_states, and the whole conversation in the latest", async () => {
    const server = await start();
    const { agentStates } = server.services;
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("echo", (state: typeof MessagesAnnotation.State) => ({ messages: [new AIMessage(`echo ${state.messages.length}`)] }))
      .addEdge(START, "echo")
      .compile({ checkpointer: new AgentStatesSaver(agentStates, "echo-graph") });
    server.services.agents.add(langGraphAgent({ ...refundAgent(agentStates).info, name: "echo-graph" }, graph, { states: agentStates }));
    const client = new RecordingAgent(server.url, { path: "/api/agui/echo-graph" });
    for (let turn = 0; turn < 8; turn++) {
      client.addMessage(userMessage(`turn ${turn}`));
      expectValidRun(await observeRun(client));
    }
    expect(client.messages).toHaveLength(16);
    expect(client.messages.at(-1)?.content).toBe("echo 15");
    const checkpoints = await agentStates.list("echo-graph", client.threadId, "checkpoint/");
    expect(checkpoints.length).toBeLessThanOrEqual(DEFAULT_KEPT_CHECKPOINTS);
    expect(checkpoints.length).toBeGreaterThan(1);
    // Writes of pruned checkpoints go with them.
    const kept = new Set(checkpoints.map((row) => row.key.split("/").at(-1)));
    for (const row of await agentStates.list("echo-graph", client.threadId, "write/")) expect(kept.has(row.key.split("/")[2])).toBe(true);
  });

  it("refuses a graph compiled without a checkpointer", () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("n", () => ({}))
      .addEdge(START, "n")
      .compile();
    const services = testServices();
    expect(() => langGraphAgent(refundAgent(services.agentStates).info, graph, { states: services.agentStates })).toThrow(
      /needs a checkpointer/,
    );
    services.close();
  });
});
