// The Settings page's contract with /api/settings: what GET answers and what PUT takes. Re-exported
// by contracts.ts, which components import. Provider keys go in and never come out: the answer says
// whether each key is set and where from, never the key.
import { z } from "zod";
import { ApiKey, BaseUrl, MaxSteps, ModelRefText, SystemPrompt, ToolSelection, type ProviderName } from "../agents/assistant-settings";

export { MAX_STEPS, MAX_SYSTEM_PROMPT, PROVIDER_NAMES, type ProviderName } from "../agents/assistant-settings";

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
