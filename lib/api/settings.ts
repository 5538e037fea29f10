import { assistantSetup } from "../agents/assistant";
import { PROVIDER_NAMES, readAssistantSettings, SETTING_KEYS, type ProviderName } from "../agents/assistant-settings";
import { ModelError } from "../agents/model";
import { planLabel, planModel } from "../agents/models/resolve";
import { DomainError } from "../errors";
import type { Protect } from "../http/authorize";
import { readJsonBody } from "../http/request-input";
import { json } from "../http/respond";
import type { Services } from "../services";
import { SettingsPatch, type ProviderView, type SettingFrom, type SettingsView } from "./settings-contract";

/** A settings body is small: a system prompt of 20 000 characters and a few hundred tool names. */
const SETTINGS_MAX_BYTES = 256 * 1024;

const PROVIDERS: Record<ProviderName, { label: string; keyVariable: string; baseUrlVariable: string }> = {
  openai: { label: "OpenAI (or an OpenAI-compatible server)", keyVariable: "OPENAI_API_KEY", baseUrlVariable: "OPENAI_BASE_URL" },
  anthropic: { label: "Anthropic", keyVariable: "ANTHROPIC_API_KEY", baseUrlVariable: "ANTHROPIC_BASE_URL" },
  gemini: { label: "Gemini", keyVariable: "GEMINI_API_KEY", baseUrlVariable: "GEMINI_BASE_URL" },
};

/**
 * /api/settings: the assistant's model, instructions, step limit and tools, and the provider keys
 * and base URLs. Reading takes the "tools" scope; changing takes "admin". Keys are write-only:
 * the answer says whether each is set and where from, and the log names the settings changed,
 * never their values.
 */
export function settingsApi(services: Pick<Services, "settings" | "config" | "registry" | "logger">, protect: Protect) {
  const { settings, registry, logger } = services;

  const get = protect("tools", async (_request, caller) => json(settingsView(services, caller.scopes.includes("admin"))));

  const update = protect("admin", async (request, caller) => {
    const patch = await readJsonBody(request, SettingsPatch, SETTINGS_MAX_BYTES);
    // A selection names tools that exist now (one removed later is skipped at run time).
    const unknown = (patch.tools ?? []).map((name, index) => ({ name, index })).filter(({ name }) => !registry.get(name));
    if (unknown.length)
      throw new DomainError("invalid_body", "The tool selection names tools the registry does not hold", {
        issues: unknown.map(({ name, index }) => ({ path: `/tools/${index}`, message: `No tool named "${name}" is registered` })),
      });
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
    settings.write(changes, caller.id);
    logger.info("settings changed", { by: caller.id, keys: [...changes.keys()] });
    return json(settingsView(services, true));
  });

  return { get, update };
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
    providers,
    tools: registry.forTarget("agui").map((tool) => ({ name: tool.name, title: tool.title, description: tool.description })),
    canEdit,
  };
}
