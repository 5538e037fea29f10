// The two framework examples of the README ("Framework agents"), as written there but with the model
// pointed at the scripted model server: they must keep compiling and working as documented.
import { EventType } from "@ag-ui/core";
import { Agent, tool } from "@openai/agents";
import { ChatOpenAI } from "@langchain/openai";
import { END, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentStatesSaver, langGraphAgent } from "@/lib/agents/frameworks/langgraph";
import { openAIAgentsAgent, openAIAgentsModel } from "@/lib/agents/frameworks/openai-agents";
import { guardedFetch } from "@/lib/agents/models/resolve";
import { openAIChatWire, openAIResponsesWire, ScriptedModelServer } from "@/lib/demo/model-server";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { eventsOf, expectValidRun, lastText, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";

let server: AguiTestServer;
let provider: ScriptedModelServer;

beforeAll(async () => {
  provider = await ScriptedModelServer.start({ formats: [openAIChatWire, openAIResponsesWire] });
  server = await startAguiServer();
  const { agents, agentStates } = server.services;
  // The scripted provider is on loopback: the guard is widened for it, as OPENAI_BASE_URL would be.
  const outbound = server.services.outbound.widen(["127.0.0.1"]);
  const baseURL = `${provider.url}/v1`;
  let lookups = 0;

  const model = openAIAgentsModel({ model: "gpt-5-mini", apiKey: "sk-test", baseUrl: baseURL, fetch: guardedFetch(outbound) });
  const lookup = tool({
    name: "lookup_order",
    description: "Find an order",
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    execute: async ({ id }) => `order ${id}: shipped (lookup ${++lookups})`,
  });
  agents.add(
    openAIAgentsAgent(
      {
        name: "orders",
        description: "Order desk",
        model: model.label,
        capabilities: { tools: true, clientTools: false, approvals: true, sharedState: false, reasoning: true },
      },
      (registryTools) => new Agent({ name: "Orders", instructions: "Help with orders.", tools: [lookup, ...registryTools] }),
      { model, states: agentStates },
    ),
  );

  const chat = new ChatOpenAI({ model: "gpt-5-mini", apiKey: "sk-test", configuration: { baseURL, fetch: guardedFetch(outbound) } });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("confirm", () => {
      const answer = interrupt({ question: "Go ahead?" });
      return { messages: [{ role: "user", content: `The person answered ${JSON.stringify(answer)}` }] };
    })
    .addNode("model", async (state) => ({ messages: [await chat.invoke(state.messages)] }))
    .addEdge(START, "confirm")
    .addEdge("confirm", "model")
    .addEdge("model", END)
    .compile({ checkpointer: new AgentStatesSaver(agentStates, "confirmer") });
  agents.add(
    langGraphAgent(
      {
        name: "confirmer",
        description: "Asks first",
        model: "openai:gpt-5-mini",
        capabilities: { tools: false, clientTools: false, approvals: true, sharedState: false, reasoning: false },
      },
      graph,
      { states: agentStates },
    ),
  );
});
afterAll(async () => {
  await server?.close();
  await provider?.close();
});

describe("the README's framework examples", () => {
  it("the OpenAI Agents SDK agent pauses on its own needsApproval tool and runs it once approved", async () => {
    provider.script({ toolCalls: [{ name: "lookup_order", args: { id: "A-7" } }] }, { text: "Order A-7 has shipped." });
    const client = new RecordingAgent(server.url, { path: "/api/agui/orders" });
    client.addMessage(userMessage("Where is order A-7?"));
    const paused = await observeRun(client);
    expectValidRun(paused);
    const outcome = outcomeOf(paused) as { type: string; interrupts?: Array<{ id: string }> };
    expect(outcome.type).toBe("interrupt");
    const resumed = await observeRun(client, {
      resume: [{ interruptId: outcome.interrupts![0]!.id, status: "resolved", payload: { approved: true } }],
    });
    expectValidRun(resumed);
    expect(String(eventsOf(resumed, EventType.TOOL_CALL_RESULT)[0]!.content)).toContain("order A-7: shipped (lookup 1)");
    expect(lastText(resumed)).toBe("Order A-7 has shipped.");
  });

  it("the LangGraph graph asks first with interrupt(), and the answer reaches the model", async () => {
    const client = new RecordingAgent(server.url, { path: "/api/agui/confirmer" });
    client.addMessage(userMessage("Cancel my subscription"));
    const paused = await observeRun(client);
    expectValidRun(paused);
    const outcome = outcomeOf(paused) as { type: string; interrupts?: Array<{ id: string }> };
    expect(outcome.type).toBe("interrupt");
    provider.script({ text: "Done: cancelled." });
    const resumed = await observeRun(client, {
      resume: [{ interruptId: outcome.interrupts![0]!.id, status: "resolved", payload: { go: true } }],
    });
    expectValidRun(resumed);
    expect(lastText(resumed)).toBe("Done: cancelled.");
    expect(JSON.stringify(provider.requests.at(-1)!.body)).toContain('The person answered {\\"go\\":true}');
  });
});
