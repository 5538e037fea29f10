import type { Logger } from "../log";
import type { OutboundGuard } from "../net";
import type { Agent } from "./agent";
import { DEFAULT_SYSTEM_PROMPT } from "./assistant";
import { AGENT_PROFILE_PREFIX, AgentProfile, DEFAULT_PROFILE_MAX_STEPS, MAX_AGENT_PROFILES } from "./agent-profile";
import { readAssistantSettings, type SettingsReader } from "./assistant-settings";
import type { AgentCatalog } from "./catalog";
import { llmAgent, type LlmAgentSetup } from "./llm-agent";
import { ModelError } from "./model";
import type { ModelEnvironment } from "./models/resolve";

// LLM agents an admin adds in Settings, next to the built-in assistant: each has its own name,
// description, model, system prompt, step limit and tool selection, and shares the console's
// provider keys and base URLs (one per provider). A profile is one JSON value in the settings table
// under `agents.<name>`; it never holds a key.

/** The part of the settings store that profiles are read from (lib/db SettingsStore). */
export interface ProfileReader extends SettingsReader {
  withPrefix(prefix: string, limit: number): Array<{ key: string; value: unknown }>;
}

/** The settings key of the profile named `name`. */
export function profileKey(name: string): string {
  return `${AGENT_PROFILE_PREFIX}${name}`;
}

/**
 * A stored value read back as a profile. A value that fails the schema (written by hand, or by an
 * older console), or whose name is not its key's, is undefined: such a profile is not served.
 */
export function parseStoredProfile(key: string, value: unknown): AgentProfile | undefined {
  const parsed = AgentProfile.safeParse(value);
  return parsed.success && profileKey(parsed.data.name) === key ? parsed.data : undefined;
}

/** The stored profile named `name`, or undefined when none (or no valid one) is stored. */
export function readAgentProfile(reader: SettingsReader, name: string): AgentProfile | undefined {
  const key = profileKey(name);
  const row = reader.many([key])[0];
  return row && parseStoredProfile(key, row.value);
}

/** Every stored profile, oldest first; `invalid` names the keys whose value is not a profile. */
export function readAgentProfiles(reader: ProfileReader): { profiles: AgentProfile[]; invalid: string[] } {
  const profiles: AgentProfile[] = [];
  const invalid: string[] = [];
  for (const row of reader.withPrefix(AGENT_PROFILE_PREFIX, MAX_AGENT_PROFILES)) {
    const profile = parseStoredProfile(row.key, row.value);
    if (profile) profiles.push(profile);
    else invalid.push(row.key);
  }
  return { profiles, invalid };
}

/** What an added agent runs with: its own prompt, step limit and tools, or the defaults. */
export function profileSetup(profile: AgentProfile): LlmAgentSetup {
  return {
    systemPrompt: profile.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    maxSteps: profile.maxSteps ?? DEFAULT_PROFILE_MAX_STEPS,
    tools: profile.tools ?? undefined,
  };
}

/** Whose model it is, in the messages that say which key is missing. */
export function profileOwner(name: string): string {
  return `The ${name} agent's`;
}

export interface ProfileAgentOptions {
  env: ModelEnvironment;
  settings: ProfileReader;
  outbound: OutboundGuard;
}

const profileAgents = new WeakSet<Agent>();

/**
 * The agent of the profile named `name`: the same LLM agent as the assistant, reading its profile
 * (and the console's provider keys) at the start of every run, so an edit applies to the next run.
 * A run that starts after the profile was removed ends with RUN_ERROR saying so.
 */
export function profileAgent(name: string, options: ProfileAgentOptions): Agent {
  const { env, settings, outbound } = options;
  const agent = llmAgent({
    name,
    env,
    outbound,
    owner: profileOwner(name),
    read: () => {
      const profile = readAgentProfile(settings, name);
      if (!profile) throw new ModelError(`The agent ${name} was removed in Settings`, "model_not_configured");
      const { keys, baseUrls } = readAssistantSettings(settings);
      return {
        description: profile.description || "An LLM agent added in Settings.",
        settings: { model: profile.model, keys, baseUrls },
        setup: profileSetup(profile),
      };
    },
  });
  profileAgents.add(agent);
  return agent;
}

/** Whether `agent` was built from a profile (and not, say, a built-in agent of the same name). */
export function isProfileAgent(agent: Agent | undefined): boolean {
  return agent !== undefined && profileAgents.has(agent);
}

/** The catalog's agent whose name is `name` up to letter case, if any: names differing only so would confuse people. */
export function agentNamed(agents: AgentCatalog, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return agents.list().find((info) => info.name.toLowerCase() === wanted)?.name;
}

/**
 * At start-up: serve every stored profile. One that is not valid, or whose name another agent of
 * the catalog has taken meanwhile, is left out with a warning (it stays stored; Settings can remove
 * it). Returns how many were added.
 */
export function registerAgentProfiles(deps: ProfileAgentOptions & { agents: AgentCatalog; logger: Logger }): number {
  const { profiles, invalid } = readAgentProfiles(deps.settings);
  if (invalid.length) deps.logger.warn("stored agent profiles that are not valid are not served", { keys: invalid });
  let count = 0;
  for (const profile of profiles) {
    const taken = agentNamed(deps.agents, profile.name);
    if (taken) {
      deps.logger.warn("an agent added in Settings is not served: another agent has its name", { name: profile.name, taken });
      continue;
    }
    deps.agents.add(profileAgent(profile.name, deps));
    count++;
  }
  return count;
}
