// The Settings page's contract with /api/settings: what GET answers and what PUT takes, and the
// bodies of /api/settings/agents (POST adds an agent) and /api/settings/agents/<name> (PUT changes
// one). Re-exported by contracts.ts, which components import. Provider keys go in and never come
// out: the answer says whether each key is set and where from, never the key.
import { z } from "zod";
import type { AgentProfile, AgentProfilePatch } from "../agents/agent-profile";
import { ApiKey, BaseUrl, MaxSteps, ModelRefText, SystemPrompt, ToolSelection, type ProviderName } from "../agents/assistant-settings";

export { MAX_STEPS, MAX_SYSTEM_PROMPT, PROVIDER_NAMES, type ProviderName } from "../agents/assistant-settings";
export {
  AgentName,
  AgentProfile as NewAgentProfile,
  AgentProfilePatch,
  MAX_AGENT_DESCRIPTION,
  MAX_AGENT_PROFILES,
  DEFAULT_PROFILE_MAX_STEPS,
} from "../agents/agent-profile";

/** Where an effective value came from: Settings override the environment, which overrides defaults. */
export type SettingFrom = "settings" | "environment" | "default";

/** One provider as the page shows it: no key, only whether one is set and where. */
export interface ProviderView {
  name: ProviderName;
  label: string;
  /** The variable that sets the key in the environment, e.g. OPENAI_API_KEY. */
  keyVariable: string;
  baseUrlVariable: string;
  /** `from` is where the key in use comes from (Settings win); null when no key is set anywhere. */
  key: { set: boolean; from: "settings" | "environment" | null; inSettings: boolean; inEnvironment: boolean };
  baseUrl: { value: string | null; from: "settings" | "environment" | null; inSettings: string | null; inEnvironment: string | null };
}

/** An LLM agent added in Settings, as the page shows it (a profile never holds a key). */
export interface AgentProfileView {
  name: string;
  description: string;
  /** `provider:model`, as stored. */
  model: string;
  /** What the profile holds (null: the built-in instructions, the default step limit, every tool). */
  systemPrompt: string | null;
  maxSteps: number | null;
  tools: string[] | null;
  /** What its next run uses. `model` is null with `problem` saying what to set when the model cannot run. */
  effective: { model: string | null; problem: string | null; systemPrompt: string; maxSteps: number };
}

/** GET /api/settings */
export interface SettingsView {
  assistant: {
    /** What the Settings hold (null: not set there, the environment or default applies). */
    stored: { model: string | null; systemPrompt: string | null; maxSteps: number | null; tools: string[] | null };
    /** What the environment sets. */
    environment: { model: string | null; systemPrompt: string | null; maxSteps: number };
    /** What the next run uses. `model` is null with `problem` saying what to set when no model can run. */
    effective: {
      model: string | null;
      modelFrom: SettingFrom | null;
      problem: string | null;
      systemPrompt: string;
      systemPromptFrom: SettingFrom;
      maxSteps: number;
      maxStepsFrom: SettingFrom;
    };
  };
  /** The LLM agents added in Settings, oldest first; each is served at /api/agui/<name>. */
  agents: AgentProfileView[];
  providers: ProviderView[];
  /** The registry tools served over AG-UI: what a selection may name. */
  tools: Array<{ name: string; title: string; description: string }>;
  /** Whether the caller may change the settings (the admin scope). */
  canEdit: boolean;
}

const ProviderPatch = z
  .object({
    /** A string sets or replaces the key; null clears it (the environment's applies again). */
    apiKey: ApiKey.nullable().optional(),
    baseUrl: BaseUrl.nullable().optional(),
  })
  .strict();

/**
 * PUT /api/settings: each field present is changed, each absent one left as it is; null clears a
 * setting so the environment (or the default) applies again. `tools` null offers every tool.
 */
export const SettingsPatch = z
  .object({
    model: ModelRefText.nullable().optional(),
    systemPrompt: SystemPrompt.nullable().optional(),
    maxSteps: MaxSteps.nullable().optional(),
    tools: ToolSelection.nullable().optional(),
    providers: z
      .object({ openai: ProviderPatch.optional(), anthropic: ProviderPatch.optional(), gemini: ProviderPatch.optional() })
      .strict()
      .optional(),
  })
  .strict();
export type SettingsPatch = z.input<typeof SettingsPatch>;
/** POST /api/settings/agents */
export type NewAgentProfileBody = z.input<typeof AgentProfile>;
/** PUT /api/settings/agents/<name> */
export type AgentProfilePatchBody = z.input<typeof AgentProfilePatch>;
