"use client";

import { useId, useState, type FormEvent } from "react";
import { type ProviderView, type SettingsPatch, type SettingsView } from "@/lib/api/contracts";
import { ErrorBox } from "../common/error-box";
import { requestJson } from "../common/request-json";
import { hint, input, label, mono } from "../sources/form-styles";
import { AgentProfiles } from "./agent-profiles";
import { button, secondary } from "./buttons";
import { StepLimitField } from "./step-limit-field";
import { ToolPicker, useToolSelection } from "./tool-picker";

/**
 * The Settings page's form: the agents (the assistant's model, system prompt, step limit and tools,
 * and the LLM agents added next to it), and each provider's key and base URL. Every save sends only what it changes and shows the answer; a key is
 * typed, saved and never shown again (the page only says whether one is set, and where from).
 */
export function SettingsForm({ initial }: { initial: SettingsView }) {
  const [view, setView] = useState(initial);
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState<string>();
  const [busy, setBusy] = useState(false);

  const save = async (patch: SettingsPatch, what: string): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    setSaved(undefined);
    try {
      setView(await requestJson<SettingsView>("/api/settings", { method: "PUT", body: patch }));
      setSaved(what);
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="space-y-6">
      {!view.canEdit ? (
        <p role="note" className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          Changing settings needs the <code>admin</code> scope; you can read them.
        </p>
      ) : null}
      <section aria-labelledby="agents-heading" className="space-y-4">
        <div>
          <h2 id="agents-heading" className="text-lg font-semibold">
            Agents
          </h2>
          <p className="text-sm text-slate-600">
            The built-in <code>assistant</code> and the LLM agents added here. Each is served at <code>/api/agui/NAME</code> and offered in
            Chat; all of them use the provider keys below.
          </p>
        </div>
        <ModelStatus view={view} />
        {error ? <ErrorBox error={error} title="The settings were not saved" /> : null}
        {saved ? (
          <p role="status" className="text-sm text-emerald-700">
            {saved}
          </p>
        ) : null}
        <AssistantSection view={view} disabled={!view.canEdit || busy} save={save} />
        <AgentProfiles view={view} onView={setView} />
      </section>
      <section aria-labelledby="providers-heading" className="space-y-4">
        <h2 id="providers-heading" className="text-lg font-semibold">
          Providers
        </h2>
        {view.providers.map((provider) => (
          <ProviderCard key={provider.name} provider={provider} disabled={!view.canEdit || busy} save={save} />
        ))}
      </section>
    </div>
  );
}

function ModelStatus({ view }: { view: SettingsView }) {
  const { effective } = view.assistant;
  if (effective.model)
    return (
      <p className="rounded-md border border-slate-200 bg-white p-3 text-sm" data-testid="model-in-use">
        The assistant uses <code className="font-mono">{effective.model}</code> (from {fromText(effective.modelFrom)}).
      </p>
    );
  return (
    <p role="note" className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900" data-testid="model-in-use">
      {effective.problem}
    </p>
  );
}

function AssistantSection({
  view,
  disabled,
  save,
}: {
  view: SettingsView;
  disabled: boolean;
  save: (patch: SettingsPatch, what: string) => Promise<boolean>;
}) {
  const id = useId();
  const { stored, environment, effective } = view.assistant;
  const [model, setModel] = useState(stored.model ?? "");
  const [prompt, setPrompt] = useState(stored.systemPrompt ?? "");
  const [steps, setSteps] = useState(stored.maxSteps === null ? "" : String(stored.maxSteps));
  const tools = useToolSelection(stored.tools, view.tools);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // An empty field clears the setting, so the environment's value (or the default) applies again.
    const maxSteps = steps.trim() === "" ? null : Number(steps);
    await save(
      {
        model: model.trim() || null,
        systemPrompt: prompt.trim() ? prompt : null,
        maxSteps,
        tools: tools.selection(),
      },
      "Assistant settings saved.",
    );
  };

  return (
    <form onSubmit={submit} aria-labelledby={`${id}-heading`} className="space-y-4 rounded-lg border border-slate-200 bg-white p-4">
      <h3 id={`${id}-heading`} className="font-semibold">
        Assistant
      </h3>
      <div>
        <label htmlFor={`${id}-model`} className={label}>
          Model
        </label>
        <input
          id={`${id}-model`}
          className={mono}
          value={model}
          disabled={disabled}
          onChange={(e) => setModel(e.target.value)}
          placeholder={environment.model ?? "openai:gpt-5-mini"}
        />
        <p className={hint}>
          <code>provider:model</code>: <code>openai:gpt-5-mini</code>, <code>anthropic:claude-sonnet-4-5</code>,{" "}
          <code>gemini:gemini-2.5-flash</code>, or <code>openai:NAME</code> for an OpenAI-compatible server (<code>openai-chat:</code> and{" "}
          <code>openai-responses:</code> pick the OpenAI API). Empty:{" "}
          {environment.model ? (
            <>
              ASSISTANT_MODEL (<code>{environment.model}</code>)
            </>
          ) : (
            "the default model of the first provider with a key"
          )}
          .
        </p>
      </div>
      <div>
        <label htmlFor={`${id}-prompt`} className={label}>
          System prompt
        </label>
        <textarea
          id={`${id}-prompt`}
          rows={5}
          className={input}
          value={prompt}
          disabled={disabled}
          onChange={(e) => setPrompt(e.target.value)}
          placeholder={effective.systemPromptFrom === "settings" ? "" : effective.systemPrompt}
        />
        <p className={hint}>Empty: {environment.systemPrompt ? "ASSISTANT_SYSTEM_PROMPT" : "the built-in instructions shown above"}.</p>
      </div>
      <StepLimitField id={id} value={steps} onChange={setSteps} disabled={disabled} fallback={environment.maxSteps}>
        Model turns that call tools before the assistant stops. Empty: ASSISTANT_MAX_STEPS ({environment.maxSteps}).
      </StepLimitField>
      <ToolPicker id={id} tools={view.tools} state={tools} disabled={disabled} listLabel="Tools the assistant may call" />
      <button type="submit" className={button} disabled={disabled}>
        Save assistant settings
      </button>
    </form>
  );
}

function ProviderCard({
  provider,
  disabled,
  save,
}: {
  provider: ProviderView;
  disabled: boolean;
  save: (patch: SettingsPatch, what: string) => Promise<boolean>;
}) {
  const id = useId();
  const [key, setKey] = useState("");
  const [baseUrl, setBaseUrl] = useState(provider.baseUrl.inSettings ?? "");
  const patch = (change: NonNullable<NonNullable<SettingsPatch["providers"]>["openai"]>): SettingsPatch => ({
    providers: { [provider.name]: change },
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const change: Parameters<typeof patch>[0] = { baseUrl: baseUrl.trim() || null };
    if (key) change.apiKey = key;
    if (await save(patch(change), `${provider.label}: saved.`)) setKey("");
  };

  return (
    <form
      onSubmit={submit}
      aria-labelledby={`${id}-heading`}
      className="space-y-3 rounded-lg border border-slate-200 bg-white p-4"
      data-testid={`provider-${provider.name}`}
    >
      <h3 id={`${id}-heading`} className="font-semibold">
        {provider.label}
      </h3>
      <p className="text-sm" data-testid="key-status">
        {keyStatus(provider)}
      </p>
      <div>
        <label htmlFor={`${id}-key`} className={label}>
          {provider.key.inSettings ? "Replace the key" : "Key"}
        </label>
        <input
          id={`${id}-key`}
          type="password"
          autoComplete="off"
          className={mono}
          value={key}
          disabled={disabled}
          onChange={(e) => setKey(e.target.value)}
        />
        <p className={hint}>Kept on the server, never shown again. Without one here, {provider.keyVariable} applies.</p>
      </div>
      <div>
        <label htmlFor={`${id}-url`} className={label}>
          Base URL
        </label>
        <input
          id={`${id}-url`}
          type="url"
          className={mono}
          value={baseUrl}
          disabled={disabled}
          onChange={(e) => setBaseUrl(e.target.value)}
          placeholder={provider.baseUrl.inEnvironment ?? (provider.name === "openai" ? "http://127.0.0.1:11434/v1" : "")}
        />
        <p className={hint}>
          {provider.name === "openai"
            ? "An OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio); the console may reach its host even on a private network. "
            : "A gateway or proxy in front of the API. "}
          Empty: {provider.baseUrlVariable}
          {provider.baseUrl.inEnvironment ? ` (${provider.baseUrl.inEnvironment})` : " or the provider's own address"}.
        </p>
      </div>
      <div className="flex gap-2">
        <button type="submit" className={button} disabled={disabled}>
          Save {provider.label.split(" ")[0]}
        </button>
        {provider.key.inSettings ? (
          <button
            type="button"
            className={secondary}
            disabled={disabled}
            onClick={() => void save(patch({ apiKey: null }), `${provider.label}: the key set here was cleared.`)}
          >
            Clear the key set here
          </button>
        ) : null}
      </div>
    </form>
  );
}

function keyStatus(provider: ProviderView): string {
  const { key } = provider;
  if (key.inSettings)
    return key.inEnvironment
      ? `A key is set here; it overrides ${provider.keyVariable}, which is also set.`
      : "A key is set here (in Settings).";
  if (key.inEnvironment) return `A key is set by ${provider.keyVariable} (environment).`;
  return `No key is set: set ${provider.keyVariable} or add one here.`;
}

function fromText(from: string | null): string {
  if (from === "settings") return "Settings";
  if (from === "environment") return "ASSISTANT_MODEL";
  return "the default for the provider whose key is set";
}
