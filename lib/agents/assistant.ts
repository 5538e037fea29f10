import type { Config } from "../config";
import type { OutboundGuard } from "../net";
import type { Agent } from "./agent";
import { readAssistantSettings, type AssistantSettings, type SettingsReader } from "./assistant-settings";
import { llmAgent, type LlmAgentSetup } from "./llm-agent";
import type { ModelEnvironment } from "./models/resolve";

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
export type AssistantSetup = LlmAgentSetup;

/** The system prompt, step limit and tool selection a run uses. */
export function assistantSetup(env: AssistantEnvironment, settings: AssistantSettings): AssistantSetup {
  return {
    systemPrompt: settings.systemPrompt ?? env.ASSISTANT_SYSTEM_PROMPT ?? DEFAULT_SYSTEM_PROMPT,
    maxSteps: settings.maxSteps ?? env.ASSISTANT_MAX_STEPS,
    tools: settings.tools,
  };
}

/** What the built-in assistant says of itself in the agent list. */
export const ASSISTANT_DESCRIPTION =
  "An LLM with the registry's tools: OpenAI, Anthropic, Gemini or a local OpenAI-compatible server (set in Settings).";

/**
 * The `assistant` agent: the LLM agent (llm-agent.ts) whose model, instructions, step limit and
 * tools are read from the Settings and the environment at the start of each run; a run with no
 * model configured ends with RUN_ERROR "model_not_configured" naming what to set.
 */
export function assistantAgent(options: AssistantOptions): Agent {
  const { env } = options;
  return llmAgent({
    name: "assistant",
    env,
    outbound: options.outbound,
    read: () => {
      const settings = readAssistantSettings(options.settings);
      return { description: ASSISTANT_DESCRIPTION, settings, setup: assistantSetup(env, settings) };
    },
  });
}
