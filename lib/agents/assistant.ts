import type { Config } from "../config";
import type { OutboundGuard } from "../net";
import type { Agent, AgentInfo } from "./agent";
import { agentFunction } from "./agent-function";
import type { AgentRun } from "./agent-run";
import { readAssistantSettings, type AssistantSettings, type SettingsReader } from "./assistant-settings";
import { ModelError, type ToolDescriptor } from "./model";
import { createModel, planLabel, planModel, type ModelEnvironment } from "./models/resolve";
import { runToolLoop } from "./tool-loop";

/** The environment the assistant reads (Settings override each part). */
export type AssistantEnvironment = ModelEnvironment & Pick<Config, "ASSISTANT_SYSTEM_PROMPT" | "ASSISTANT_MAX_STEPS">;

export interface AssistantOptions {
  env: AssistantEnvironment;
  /** The Settings, read at the start of every run: a change applies to the next run without a restart. */
  settings: SettingsReader;
  /** The console's outbound guard: every request to a provider goes through it. */
  outbound: OutboundGuard;
}

/** The instructions the assistant runs with when neither Settings nor ASSISTANT_SYSTEM_PROMPT give others. */
export const DEFAULT_SYSTEM_PROMPT = [
  "You are the assistant of an AG-UI console.",
  "Use the tools you are given when they help answer; call several at once when they do not depend on each other.",
  "Some calls wait for a person to approve them: when a call was denied, say so and do not try it again.",
  "Answer briefly and plainly.",
].join(" ");

/** What the assistant will run with, all sources merged (Settings, then environment, then defaults). */
export interface AssistantSetup {
  systemPrompt: string;
  maxSteps: number;
  /** Undefined: every registry tool served over AG-UI. */
  tools?: readonly string[];
}

/** The system prompt, step limit and tool selection a run uses. */
export function assistantSetup(env: AssistantEnvironment, settings: AssistantSettings): AssistantSetup {
  return {
    systemPrompt: settings.systemPrompt ?? env.ASSISTANT_SYSTEM_PROMPT ?? DEFAULT_SYSTEM_PROMPT,
    maxSteps: settings.maxSteps ?? env.ASSISTANT_MAX_STEPS,
    tools: settings.tools,
  };
}

/**
 * The `assistant` agent: a real model (OpenAI, Anthropic, Gemini or an OpenAI-compatible server)
 * with the registry's tools, run through the executor like every agent's. The model, instructions,
 * step limit and tools are read from the Settings and the environment at the start of each run; a
 * run with no model configured ends with RUN_ERROR "model_not_configured" naming what to set.
 * `info.model` says the model in use, or what is missing, whenever the agent list is read.
 */
export function assistantAgent(options: AssistantOptions): Agent {
  const { env, outbound } = options;
  const base: AgentInfo = {
    name: "assistant",
    description: "An LLM with the registry's tools: OpenAI, Anthropic, Gemini or a local OpenAI-compatible server (set in Settings).",
    model: "",
    capabilities: { tools: true, clientTools: true, approvals: true, sharedState: false, reasoning: true },
  };
  const inner = agentFunction(base, async (run) => {
    const settings = readAssistantSettings(options.settings);
    const model = createModel(planModel(env, settings), outbound);
    const setup = assistantSetup(env, settings);
    // An empty prompt in Settings means no instructions at all.
    await runToolLoop(run, {
      model,
      system: setup.systemPrompt || undefined,
      maxTurns: setup.maxSteps,
      tools: assistantTools(run, setup.tools),
    });
  });
  return {
    get info(): AgentInfo {
      return { ...base, model: modelInUse(env, readAssistantSettings(options.settings)) };
    },
    run: (input, ctx) => inner.run(input, ctx),
  };
}

/** The model label of the current settings, or "not configured: ..." saying what to set. */
function modelInUse(env: ModelEnvironment, settings: AssistantSettings): string {
  try {
    return planLabel(planModel(env, settings));
  } catch (error) {
    if (error instanceof ModelError) return `not configured: ${error.message}`;
    throw error;
  }
}

/**
 * The registry tools served over AG-UI (those `selected`, when a selection is set), with their
 * definitions so drivers export them with the console's exporters; then the client's own tools (a
 * registry tool wins a name clash).
 */
function assistantTools(run: AgentRun, selected: readonly string[] | undefined): ToolDescriptor[] {
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
