import { AgentName, AgentProfile, AgentProfilePatch, MAX_AGENT_PROFILES } from "../agents/agent-profile";
import {
  agentNamed,
  isProfileAgent,
  profileAgent,
  profileKey,
  profileOwner,
  profileSetup,
  readAgentProfile,
  readAgentProfiles,
} from "../agents/agent-profiles";
import { assistantSetup } from "../agents/assistant";
import {
  PROVIDER_NAMES,
  readAssistantSettings,
  SETTING_KEYS,
  type AssistantSettings,
  type ProviderName,
} from "../agents/assistant-settings";
import { tryPlanModel } from "../agents/llm-agent";
import { ModelError } from "../agents/model";
import { planLabel, planModel } from "../agents/models/resolve";
import { DomainError } from "../errors";
import type { Protect } from "../http/authorize";
import { readJsonBody, routeParam } from "../http/request-input";
import { json } from "../http/respond";
import type { Services } from "../services";
import { SettingsPatch, type AgentProfileView, type ProviderView, type SettingFrom, type SettingsView } from "./settings-contract";

/** A settings body is small: a system prompt of 20 000 characters and a few hundred tool names. */
const SETTINGS_MAX_BYTES = 256 * 1024;

const PROVIDERS: Record<ProviderName, { label: string; keyVariable: string; baseUrlVariable: string }> = {
  openai: { label: "OpenAI (or an OpenAI-compatible server)", keyVariable: "OPENAI_API_KEY", baseUrlVariable: "OPENAI_BASE_URL" },
  anthropic: { label: "Anthropic", keyVariable: "ANTHROPIC_API_KEY", baseUrlVariable: "ANTHROPIC_BASE_URL" },
  gemini: { label: "Gemini", keyVariable: "GEMINI_API_KEY", baseUrlVariable: "GEMINI_BASE_URL" },
};

type SettingsServices = Pick<Services, "settings" | "config" | "registry" | "logger" | "agents" | "outbound">;

/**
 * /api/settings: the assistant's model, instructions, step limit and tools, the provider keys and
 * base URLs, and the LLM agents added next to the assistant (/api/settings/agents[/<name>]).
 * Reading takes the "tools" scope; changing takes "admin". Keys are write-only: the answer says
 * whether each is set and where from, and the log names the settings changed, never their values.
 * Every change answers with the whole view, as GET does.
 */
export function settingsApi(services: SettingsServices, protect: Protect) {
  const { settings, registry, logger, agents } = services;

  const get = protect("tools", async (_request, caller) => json(settingsView(services, caller.scopes.includes("admin"))));

  const update = protect("admin", async (request, caller) => {
    const patch = await readJsonBody(request, SettingsPatch, SETTINGS_MAX_BYTES);
    // A selection names tools that exist now (one removed later is skipped at run time).
    checkToolsExist(patch.tools);
    const changes = new Map<string, unknown>();
    if (patch.model !== undefined) changes.set(SETTING_KEYS.model, patch.model);
    if (patch.systemPrompt !== undefined) changes.set(SETTING_KEYS.systemPrompt, patch.systemPrompt);
    if (patch.maxSteps !== undefined) changes.set(SETTING_KEYS.maxSteps, patch.maxSteps);
    if (patch.tools !== undefined) changes.set(SETTING_KEYS.tools, patch.tools && [...new Set(patch.tools)]);
    for (const provider of PROVIDER_NAMES) {
      const given = patch.providers?.[provider];
      if (given?.apiKey !== undefined) changes.set(SETTING_KEYS.apiKey(provider), given.apiKey);
      if (given?.baseUrl !== undefined) changes.set(SETTING_KEYS.baseUrl(provider), given.baseUrl);
    }
    await settings.write(changes, caller.id);
    logger.info("settings changed", { by: caller.id, keys: [...changes.keys()] });
    return json(settingsView(services, true));
  });

  /** POST /api/settings/agents: add an LLM agent, served at once at /api/agui/<name>. */
  const createAgent = protect("admin", async (request, caller) => {
    const profile = await readJsonBody(request, AgentProfile, SETTINGS_MAX_BYTES);
    checkToolsExist(profile.tools);
    const taken = agentNamed(agents, profile.name);
    if (taken) throw new DomainError("agent_name_taken", `An agent named ${taken} exists already; choose another name`);
    if (readAgentProfiles(settings).profiles.length >= MAX_AGENT_PROFILES)
      throw new DomainError("invalid_body", `Settings hold at most ${MAX_AGENT_PROFILES} added agents; remove one first`);
    const stored = { ...profile, tools: profile.tools && [...new Set(profile.tools)] };
    // A profile stored but not served (one left out at start-up) still holds its name.
    if (!(await settings.insert(profileKey(profile.name), stored, caller.id)))
      throw new DomainError("agent_name_taken", `Settings hold an agent named ${profile.name} already; remove it first`);
    agents.add(profileAgent(profile.name, { env: services.config, settings, outbound: services.outbound }));
    logger.info("agent added in settings", { by: caller.id, agent: profile.name });
    return json(settingsView(services, true), { status: 201 });
  });

  /** PUT /api/settings/agents/<name>: change an added agent; its next run uses the change. */
  const updateAgent = protect("admin", async (request, caller, context) => {
    const name = await storedProfileName(context);
    if (!readAgentProfile(settings, name)) throw notAdded(name);
    const patch = await readJsonBody(request, AgentProfilePatch, SETTINGS_MAX_BYTES);
    checkToolsExist(patch.tools);
    // Read again once the body is in: from here to the write nothing waits, so a removal or
    // another change made while the body was read is neither undone nor lost.
    const current = readAgentProfile(settings, name);
    if (!current) throw notAdded(name);
    const next: AgentProfile = {
      ...current,
      ...(patch.description !== undefined && { description: patch.description ?? "" }),
      ...(patch.model !== undefined && { model: patch.model }),
      ...(patch.systemPrompt !== undefined && { systemPrompt: patch.systemPrompt }),
      ...(patch.maxSteps !== undefined && { maxSteps: patch.maxSteps }),
      ...(patch.tools !== undefined && { tools: patch.tools && [...new Set(patch.tools)] }),
    };
    await settings.write(new Map([[profileKey(name), AgentProfile.parse(next)]]), caller.id);
    logger.info("agent changed in settings", { by: caller.id, agent: name, fields: Object.keys(patch) });
    return json(settingsView(services, true));
  });

  /** DELETE /api/settings/agents/<name>: remove an added agent; its threads stay readable. */
  const removeAgent = protect("admin", async (_request, caller, context) => {
    const name = await storedProfileName(context);
    const key = profileKey(name);
    // A stored value that is no longer a valid profile can be removed too: that is how it goes away.
    if (!settings.many([key]).length) throw notAdded(name);
    await settings.write(new Map([[key, null]]), caller.id);
    if (isProfileAgent(agents.get(name))) agents.remove(name);
    logger.info("agent removed in settings", { by: caller.id, agent: name });
    return json(settingsView(services, true));
  });

  /** A selection names tools that exist now (one removed later is skipped at run time). */
  function checkToolsExist(tools: readonly string[] | null | undefined): void {
    const unknown = (tools ?? []).map((name, index) => ({ name, index })).filter(({ name }) => !registry.get(name));
    if (unknown.length)
      throw new DomainError("invalid_body", "The tool selection names tools the registry does not hold", {
        issues: unknown.map(({ name, index }) => ({ path: `/tools/${index}`, message: `No tool named "${name}" is registered` })),
      });
  }

  return { get, update, createAgent, updateAgent, removeAgent };
}

/** The route's <name>, when it can name an added agent; a path that cannot names nothing (404). */
async function storedProfileName(context: Parameters<typeof routeParam>[0]): Promise<string> {
  const name = await routeParam(context, "name");
  if (!AgentName.safeParse(name).success) throw notAdded(name);
  return name;
}

function notAdded(name: string): DomainError {
  return new DomainError("agent_not_found", `No agent named "${name.slice(0, 80)}" was added in Settings`);
}

/** An added agent as the page shows it, with what its next run uses or what is missing. */
function profileView(services: Pick<Services, "config">, profile: AgentProfile, stored: AssistantSettings): AgentProfileView {
  const plan = tryPlanModel(
    services.config,
    { model: profile.model, keys: stored.keys, baseUrls: stored.baseUrls },
    profileOwner(profile.name),
  );
  const setup = profileSetup(profile);
  return {
    ...profile,
    effective: {
      model: plan instanceof ModelError ? null : planLabel(plan),
      problem: plan instanceof ModelError ? plan.message : null,
      systemPrompt: setup.systemPrompt,
      maxSteps: setup.maxSteps,
    },
  };
}

/** What the Settings page shows: stored values, the environment's, what the next run uses; no key. */
export function settingsView(services: Pick<Services, "settings" | "config" | "registry">, canEdit: boolean): SettingsView {
  const { config, registry } = services;
  const stored = readAssistantSettings(services.settings);
  const setup = assistantSetup(config, stored);
  let model: { label: string | null; from: SettingFrom | null; problem: string | null };
  try {
    const plan = planModel(config, stored);
    model = { label: planLabel(plan), from: plan.modelFrom, problem: null };
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    model = { label: null, from: null, problem: error.message };
  }
  const env: Record<ProviderName, { key?: string; baseUrl?: string }> = {
    openai: { key: config.OPENAI_API_KEY, baseUrl: config.OPENAI_BASE_URL },
    anthropic: { key: config.ANTHROPIC_API_KEY, baseUrl: config.ANTHROPIC_BASE_URL },
    gemini: { key: config.GEMINI_API_KEY, baseUrl: config.GEMINI_BASE_URL },
  };
  const providers = PROVIDER_NAMES.map((name): ProviderView => {
    const inSettings = Boolean(stored.keys[name]);
    const inEnvironment = Boolean(env[name].key);
    const urlInSettings = stored.baseUrls[name] ?? null;
    const urlInEnvironment = env[name].baseUrl ?? null;
    return {
      name,
      ...PROVIDERS[name],
      key: {
        set: inSettings || inEnvironment,
        from: inSettings ? "settings" : inEnvironment ? "environment" : null,
        inSettings,
        inEnvironment,
      },
      baseUrl: {
        value: urlInSettings ?? urlInEnvironment,
        from: urlInSettings ? "settings" : urlInEnvironment ? "environment" : null,
        inSettings: urlInSettings,
        inEnvironment: urlInEnvironment,
      },
    };
  });
  const from = (inSettings: unknown, inEnvironment: unknown): SettingFrom =>
    inSettings !== undefined ? "settings" : inEnvironment !== undefined ? "environment" : "default";
  return {
    assistant: {
      stored: {
        model: stored.model ?? null,
        systemPrompt: stored.systemPrompt ?? null,
        maxSteps: stored.maxSteps ?? null,
        tools: stored.tools ?? null,
      },
      environment: {
        model: config.ASSISTANT_MODEL ?? null,
        systemPrompt: config.ASSISTANT_SYSTEM_PROMPT ?? null,
        maxSteps: config.ASSISTANT_MAX_STEPS,
      },
      effective: {
        model: model.label,
        modelFrom: model.from,
        problem: model.problem,
        systemPrompt: setup.systemPrompt,
        systemPromptFrom: from(stored.systemPrompt, config.ASSISTANT_SYSTEM_PROMPT),
        // ASSISTANT_MAX_STEPS always has a value (its default); it counts as the environment's.
        maxStepsFrom: stored.maxSteps !== undefined ? "settings" : "environment",
        maxSteps: setup.maxSteps,
      },
    },
    agents: readAgentProfiles(services.settings).profiles.map((profile) => profileView(services, profile, stored)),
    providers,
    tools: registry.forTarget("agui").map((tool) => ({ name: tool.name, title: tool.title, description: tool.description })),
    canEdit,
  };
}
