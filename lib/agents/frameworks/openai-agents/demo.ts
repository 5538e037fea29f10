import { Agent as SdkAgent } from "@openai/agents";
import type { AgentStates } from "../../../db/agent-states";
import type { Agent } from "../../agent";
import { openAIAgentsAgent } from "./openai-agents-agent";
import { openAIAgentsModel, type OpenAIAgentsModelOptions } from "./openai-model";

/** The catalog name of the demo agent. */
export const OPENAI_AGENTS_DEMO = "openai-agents-demo";

const INSTRUCTIONS = [
  "You are the console's assistant, an agent built with the OpenAI Agents SDK.",
  "Use the tools when they help; some of them wait for a person's approval before they run, and a denied call did not happen.",
  "Answer briefly and say what the tools returned.",
].join(" ");

export interface OpenAIAgentsDemoDeps {
  /** Where paused runs wait for their resume (services.agentStates). */
  states: AgentStates;
  /** The OpenAI model: a real one with a key, or the scripted model server offline. */
  model: OpenAIAgentsModelOptions;
  streamDelayMs?: number;
}

/** The demo of the adapter: one OpenAI Agents SDK agent with instructions and every registry tool. */
export function openAIAgentsDemo(deps: OpenAIAgentsDemoDeps): Agent {
  const model = openAIAgentsModel(deps.model);
  return openAIAgentsAgent(
    {
      name: OPENAI_AGENTS_DEMO,
      description: "An OpenAI Agents SDK agent served over AG-UI, with the registry's tools and the console's approvals.",
      model: model.label,
      capabilities: { tools: true, clientTools: false, approvals: true, sharedState: false, reasoning: true },
    },
    (tools) => new SdkAgent({ name: "Console assistant", instructions: INSTRUCTIONS, tools }),
    { model, states: deps.states, streamDelayMs: deps.streamDelayMs },
  );
}
