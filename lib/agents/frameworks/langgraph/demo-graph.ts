import { SystemMessage, ToolMessage, isAIMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph, interrupt, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import type { AgentStates } from "../../../db/agent-states";
import { toOpenAIChatTool, type OpenAIChatTool } from "../../../integrations/openai/openai-tools";
import { ToolUsageError } from "../../../tools/errors";
import type { RegisteredTool } from "../../../tools/spec";
import type { Agent } from "../../agent";
import type { DriverOptions } from "../../models/driver";
import { AgentStatesSaver } from "./checkpoint-saver";
import { consoleContext, consoleToolsNode, unansweredCalls } from "./console-tools";
import { langGraphAgent } from "./langgraph-agent";
import { textContent } from "./messages";

export const LANGGRAPH_DEMO = "langgraph-demo";

/** The graph's own tool: the model asks the person for something it needs (a missing value, a yes or no). */
export const ASK_PERSON = "ask_person";

const ASK_PERSON_TOOL: OpenAIChatTool = {
  type: "function",
  function: {
    name: ASK_PERSON,
    description: "Ask the person a question and wait for the answer (a missing value, or a confirmation before acting).",
    parameters: {
      type: "object",
      properties: { question: { type: "string", description: "The question, in one sentence." } },
      required: ["question"],
      additionalProperties: false,
    },
    strict: true,
  },
};

/** What the person answers an ask_person interrupt with: a string, or `{ answer }`. */
export const ASK_RESPONSE_SCHEMA = {
  type: "object",
  properties: { answer: { type: "string", description: "The person's answer" } },
  required: ["answer"],
} as const;

const DEFAULT_SYSTEM_PROMPT =
  "You are the console's LangGraph demo agent. Use the tools to act. When you lack a value you need, " +
  `or before a refund, call ${ASK_PERSON} and wait for the answer. Be brief.`;

export interface LangGraphDemoOptions {
  /** The console's agent states (services.agentStates): checkpoints and pauses live there. */
  states: AgentStates;
  /** The OpenAI-compatible model: the scripted server offline, a real provider with a key. */
  model: DriverOptions & { maxRetries?: number };
  systemPrompt?: string;
  name?: string;
}

/**
 * The LangGraph demo agent: a model node (ChatOpenAI with the registry's tools, exported by the
 * console's OpenAI exporter, and ask_person), a tools node that runs registry tools through the
 * executor (console approvals pause the graph and are answered by the bridge), and an ask node
 * that asks the person with `interrupt()`. Checkpoints are kept in the console's database.
 */
export function langGraphDemoAgent(options: LangGraphDemoOptions): Agent {
  const name = options.name ?? LANGGRAPH_DEMO;
  const { model: modelOptions } = options;
  const chat = new ChatOpenAI({
    model: modelOptions.model,
    apiKey: modelOptions.apiKey,
    streaming: true,
    maxRetries: modelOptions.maxRetries ?? 2,
    ...(modelOptions.maxOutputTokens ? { maxTokens: modelOptions.maxOutputTokens } : {}),
    configuration: {
      ...(modelOptions.baseUrl ? { baseURL: modelOptions.baseUrl } : {}),
      ...(modelOptions.fetch ? { fetch: modelOptions.fetch } : {}),
    },
  });
  const system = new SystemMessage(options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT);

  const callModel = async (state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) => {
    const { executor } = consoleContext(config);
    const tools = [...registryTools(executor.registry.all()), ASK_PERSON_TOOL];
    const reply = await chat.bindTools(tools).invoke([system, ...state.messages], config);
    return { messages: [reply] };
  };

  const ask = async (state: typeof MessagesAnnotation.State) => {
    const calls = unansweredCalls(state.messages).filter((call) => call.name === ASK_PERSON);
    const answers: ToolMessage[] = [];
    for (const call of calls) {
      const question = typeof call.args.question === "string" ? call.args.question : "The agent needs an answer to go on.";
      const answer: unknown = interrupt({ reason: "input_required", question, toolCallId: call.id, responseSchema: ASK_RESPONSE_SCHEMA });
      answers.push(new ToolMessage({ tool_call_id: call.id, name: ASK_PERSON, content: answerText(answer) }));
    }
    return { messages: answers };
  };

  const graph = new StateGraph(MessagesAnnotation)
    .addNode("model", callModel)
    .addNode("tools", consoleToolsNode({ skip: [ASK_PERSON] }))
    .addNode("ask", ask)
    .addEdge(START, "model")
    .addConditionalEdges("model", route, ["tools", "ask", END])
    .addEdge("tools", "model")
    .addEdge("ask", "model")
    .compile({ checkpointer: new AgentStatesSaver(options.states, name) });

  return langGraphAgent(
    {
      name,
      description: "LangGraph.js graph: a model with the registry's tools, console approvals, and a step that asks you (interrupt).",
      model: `openai:${modelOptions.model} (LangGraph)`,
      capabilities: { tools: true, clientTools: false, approvals: true, sharedState: false, reasoning: false },
    },
    graph,
    {
      states: options.states,
      provider: { name: "The model provider", keyVariable: "OPENAI_API_KEY", id: "openai", model: modelOptions.model },
    },
  );
}

/** After the model: its registry calls to the tools node, its questions to the ask node (both at once), or the end. */
function route(state: { messages: BaseMessage[] }): Array<"tools" | "ask"> | typeof END {
  const last = state.messages.at(-1);
  const calls = last && isAIMessage(last) ? (last.tool_calls ?? []) : [];
  const next: Array<"tools" | "ask"> = [];
  if (calls.some((c) => c.name !== ASK_PERSON)) next.push("tools");
  if (calls.some((c) => c.name === ASK_PERSON)) next.push("ask");
  return next.length ? next : END;
}

/** The enabled registry tools exported to OpenAI's format (tools not exported to openai are left out). */
function registryTools(tools: readonly RegisteredTool[]): OpenAIChatTool[] {
  const out: OpenAIChatTool[] = [];
  for (const tool of tools) {
    if (!tool.enabled) continue;
    try {
      out.push(toOpenAIChatTool(tool).output);
    } catch (error) {
      if (!(error instanceof ToolUsageError)) throw error;
    }
  }
  return out;
}

/** The person's answer as the text the model reads. */
function answerText(answer: unknown): string {
  if (typeof answer === "string") return answer;
  if (typeof answer === "object" && answer !== null && typeof (answer as { answer?: unknown }).answer === "string")
    return (answer as { answer: string }).answer;
  return textContent(answer) || JSON.stringify(answer ?? null);
}
