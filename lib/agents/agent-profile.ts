// The profile of an LLM agent an admin adds in Settings: its name, description, model, system
// prompt, step limit and tool selection. Only zod and the assistant's setting schemas here: the
// Settings page's contract imports this file, so it must stay safe for the browser.
import { z } from "zod";
import { MaxSteps, ModelRefText, SystemPrompt, ToolSelection } from "./assistant-settings";

/** Where the settings table keeps profiles: `agents.<name>`. */
export const AGENT_PROFILE_PREFIX = "agents.";
/** Most agents Settings may add. */
export const MAX_AGENT_PROFILES = 50;
/** The step limit of an added agent whose profile sets none. */
export const DEFAULT_PROFILE_MAX_STEPS = 10;
/** Longest description taken. */
export const MAX_AGENT_DESCRIPTION = 300;

/** An added agent's name: what its endpoint /api/agui/<name> and the chat's picker show. */
export const AgentName = z
  .string({ message: "The name must be a string" })
  .regex(/^[A-Za-z0-9_-]{1,40}$/, "The name must be 1 to 40 letters, digits, dashes or underscores");

const Description = z.string().trim().max(MAX_AGENT_DESCRIPTION, `The description must be at most ${MAX_AGENT_DESCRIPTION} characters`);

/**
 * One added agent, as stored and as POST /api/settings/agents takes it. `systemPrompt` null runs
 * with the built-in instructions ("" with none at all), `maxSteps` null with the default step
 * limit, `tools` null with every registry tool served over AG-UI.
 */
export const AgentProfile = z
  .object({
    name: AgentName,
    description: Description.default(""),
    model: ModelRefText,
    systemPrompt: SystemPrompt.nullable().default(null),
    maxSteps: MaxSteps.nullable().default(null),
    tools: ToolSelection.nullable().default(null),
  })
  .strict();
export type AgentProfile = z.output<typeof AgentProfile>;

/** A change to an added agent (PUT /api/settings/agents/<name>): a field left out stays; null clears. */
export const AgentProfilePatch = z
  .object({
    description: Description.nullable().optional(),
    model: ModelRefText.optional(),
    systemPrompt: SystemPrompt.nullable().optional(),
    maxSteps: MaxSteps.nullable().optional(),
    tools: ToolSelection.nullable().optional(),
  })
  .strict();
export type AgentProfilePatch = z.output<typeof AgentProfilePatch>;
