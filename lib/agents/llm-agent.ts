import type { OutboundGuard } from "../net";
import type { Agent, AgentInfo } from "./agent";
import { agentFunction } from "./agent-function";
import type { AgentRun } from "./agent-run";
import type { AssistantSettings } from "./assistant-settings";
import { ModelError, type ChatModel, type ToolDescriptor } from "./model";
import { createModel, planLabel, planModel, type ModelEnvironment, type ModelPlan } from "./models/resolve";
import { runToolLoop } from "./tool-loop";

/** What an LLM agent runs with, all sources merged (its settings, then the environment, then defaults). */
export interface LlmAgentSetup {
  /** An empty prompt means no instructions at all. */
  systemPrompt: string;
  maxSteps: number;
  /** Undefined: every registry tool served over AG-UI. */
  tools?: readonly string[];
}

/** One reading of an LLM agent's configuration: its model settings (with the provider keys) and its setup. */
export interface LlmAgentConfiguration {
  description: string;
  /** What planModel reads: the model named for this agent, and the console's provider keys and base URLs. */
  settings: AssistantSettings;
  setup: LlmAgentSetup;
}

export interface LlmAgentOptions {
  name: string;
  env: ModelEnvironment;
  /** The console's outbound guard: every request to a provider goes through it. */
  outbound: OutboundGuard;
  /**
   * The agent's configuration, read at the start of every run and whenever the agent list is read,
   * so a change applies to the next run without a restart. Throws ModelError when there is none to
   * run with (an added agent removed under a run that was starting).
   */
  read(): LlmAgentConfiguration;
  /** Names whose model it is in "needs a key" messages, e.g. "The support agent's". */
  owner?: string;
}

const CAPABILITIES: AgentInfo["capabilities"] = { tools: true, clientTools: true, approvals: true, sharedState: false, reasoning: true };

/**
 * An LLM agent: a real model (OpenAI, Anthropic, Gemini or an OpenAI-compatible server) with the
 * registry's tools, run through the executor like every agent's. The built-in `assistant` and every
 * agent added in Settings are this function over a different `read`. A run with no usable model
 * ends with RUN_ERROR "model_not_configured" naming what to set; `info.model` says the model in use,
 * or what is missing, whenever the agent list is read.
 */
export function llmAgent(options: LlmAgentOptions): Agent {
  const { name, env, outbound, owner } = options;
  const base: AgentInfo = { name, description: "", model: "", capabilities: CAPABILITIES };
  // The driver of the last plan, kept while the plan stays the same: building an SDK client costs
  // more than a short model turn's own work. A changed model, key or base URL gets a new one.
  let last: { key: string; model: ChatModel } | undefined;
  const modelFor = (plan: ModelPlan): ChatModel => {
    const key = JSON.stringify([plan.api, plan.model, plan.apiKey, plan.baseUrl ?? ""]);
    if (last?.key !== key) last = { key, model: createModel(plan, outbound) };
    return last.model;
  };
  const inner = agentFunction(base, async (run) => {
    const { settings, setup } = options.read();
    const model = modelFor(planModel(env, settings, owner));
    await runToolLoop(run, {
      model,
      system: setup.systemPrompt || undefined,
      maxTurns: setup.maxSteps,
      tools: llmAgentTools(run, setup.tools),
    });
  });
  /** The description and model the settings give now (read from the database: only when asked for). */
  const described = (): { description: string; model: string } => {
    try {
      const configuration = options.read();
      return { description: configuration.description, model: modelInUse(env, configuration.settings, owner) };
    } catch (error) {
      if (error instanceof ModelError) return { description: "", model: `not configured: ${error.message}` };
      throw error;
    }
  };
  return {
    // The name is asked for on every run (routing, records): only the description and the model,
    // shown where agents are listed, read the settings.
    get info(): AgentInfo {
      let read: { description: string; model: string } | undefined;
      return {
        name,
        capabilities: CAPABILITIES,
        get description() {
          return (read ??= described()).description;
        },
        get model() {
          return (read ??= described()).model;
        },
      };
    },
    run: (input, ctx) => inner.run(input, ctx),
  };
}

/** The plan of `settings`, or the ModelError saying what to set. */
export function tryPlanModel(env: ModelEnvironment, settings: AssistantSettings, owner?: string): ModelPlan | ModelError {
  try {
    return planModel(env, settings, owner);
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
}

/** The model label of the current settings, or "not configured: ..." saying what to set. */
function modelInUse(env: ModelEnvironment, settings: AssistantSettings, owner?: string): string {
  const plan = tryPlanModel(env, settings, owner);
  return plan instanceof ModelError ? `not configured: ${plan.message}` : planLabel(plan);
}

/**
 * The registry tools served over AG-UI (those `selected`, when a selection is set), with their
 * definitions so drivers export them with the console's exporters; then the client's own tools (a
 * registry tool wins a name clash). A registry tool left out is never run, whatever the model asks:
 * the tool loop answers a call to a tool it did not offer as not found.
 */
function llmAgentTools(run: AgentRun, selected: readonly string[] | undefined): ToolDescriptor[] {
  const chosen = selected && new Set(selected);
  const server = run.ctx.executor.registry
    .forTarget("agui")
    .filter((tool) => !chosen || chosen.has(tool.name))
    .map((tool): ToolDescriptor => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
      client: false,
      spec: tool,
    }));
  const taken = new Set(server.map((t) => t.name));
  const client = run
    .clientTools()
    .filter((t) => !taken.has(t.name))
    .map((t): ToolDescriptor => ({
      name: t.name,
      description: t.description,
      parameters: (t.parameters as Record<string, unknown>) ?? { type: "object" },
      client: true,
    }));
  return [...server, ...client];
}
