"use client";

import { useId, useState, type FormEvent } from "react";
import {
  DEFAULT_PROFILE_MAX_STEPS,
  MAX_AGENT_PROFILES,
  type AgentProfilePatchBody,
  type AgentProfileView,
  type NewAgentProfileBody,
  type SettingsView,
} from "@/lib/api/contracts";
import { ErrorBox } from "../common/error-box";
import { requestJson } from "../common/request-json";
import { hint, input, label, mono } from "../sources/form-styles";
import { button, danger, secondary } from "./buttons";
import { StepLimitField } from "./step-limit-field";
import { ToolPicker, useToolSelection } from "./tool-picker";

type Send = (url: string, method: "POST" | "PUT" | "DELETE", body: unknown, done: string) => Promise<boolean>;

/**
 * The LLM agents added next to the assistant: one card per agent saying the model it uses (or what
 * is missing), with Edit and Remove; and a form to add one. Each change answers with the whole
 * settings view, which replaces the page's.
 */
export function AgentProfiles({ view, onView }: { view: SettingsView; onView: (view: SettingsView) => void }) {
  const [adding, setAdding] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const disabled = !view.canEdit || busy;

  const send: Send = async (url, method, body, message) => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      onView(await requestJson<SettingsView>(url, { method, body }));
      setDone(message);
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="added-agents-heading" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4">
      <div className="flex items-center justify-between gap-4">
        <h3 id="added-agents-heading" className="font-semibold">
          Added agents
        </h3>
        {view.canEdit && !adding && view.agents.length < MAX_AGENT_PROFILES ? (
          <button type="button" className={secondary} disabled={disabled} onClick={() => setAdding(true)}>
            Add an agent
          </button>
        ) : null}
      </div>
      <p className="text-sm text-slate-600">
        Each has its own model, instructions, step limit and tools; a change applies to its next run. Removing one takes it out of Chat; its
        threads stay readable.
      </p>
      {error ? <ErrorBox error={error} title="The agent was not saved" /> : null}
      {done ? (
        <p role="status" className="text-sm text-emerald-700">
          {done}
        </p>
      ) : null}
      {adding ? (
        <ProfileForm
          view={view}
          disabled={disabled}
          onCancel={() => setAdding(false)}
          onSubmit={async (body) => {
            if (await send("/api/settings/agents", "POST", body, `Agent ${body.name} added.`)) setAdding(false);
          }}
        />
      ) : null}
      {view.agents.length ? (
        <ul className="space-y-3" aria-label="Added agents">
          {view.agents.map((profile) => (
            <li key={profile.name}>
              <ProfileCard profile={profile} view={view} disabled={disabled} send={send} />
            </li>
          ))}
        </ul>
      ) : !adding ? (
        <p className="text-sm text-slate-500">No agent is added yet.</p>
      ) : null}
    </section>
  );
}

function ProfileCard({ profile, view, disabled, send }: { profile: AgentProfileView; view: SettingsView; disabled: boolean; send: Send }) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const path = `/api/settings/agents/${encodeURIComponent(profile.name)}`;
  const { effective } = profile;

  return (
    <article aria-label={`Agent ${profile.name}`} className="space-y-2 rounded-md border border-slate-200 p-3">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <p className="font-mono text-sm font-semibold">{profile.name}</p>
          {profile.description ? <p className="text-sm text-slate-600">{profile.description}</p> : null}
        </div>
        {view.canEdit && !editing && !confirming ? (
          <div className="flex gap-2">
            <button type="button" className={secondary} disabled={disabled} onClick={() => setEditing(true)}>
              Edit
            </button>
            <button type="button" className={danger} disabled={disabled} onClick={() => setConfirming(true)}>
              Remove
            </button>
          </div>
        ) : null}
      </div>
      {effective.model ? (
        <p className="text-sm" data-testid="agent-model">
          Uses <code className="font-mono">{effective.model}</code> (set as <code className="font-mono">{profile.model}</code>).
        </p>
      ) : (
        <p role="note" className="rounded-md border border-amber-200 bg-amber-50 p-2 text-sm text-amber-900" data-testid="agent-model">
          {effective.problem}
        </p>
      )}
      <dl className="grid grid-cols-[8rem_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-500">System prompt</dt>
        <dd className="truncate" title={effective.systemPrompt}>
          {profile.systemPrompt === null ? "the built-in instructions" : profile.systemPrompt || "none"}
        </dd>
        <dt className="text-slate-500">Step limit</dt>
        <dd>
          {effective.maxSteps}
          {profile.maxSteps === null ? " (default)" : ""}
        </dd>
        <dt className="text-slate-500">Tools</dt>
        <dd>{profile.tools === null ? "every tool served over AG-UI" : profile.tools.length ? profile.tools.join(", ") : "none"}</dd>
      </dl>
      {confirming ? (
        <div className="flex flex-wrap items-center gap-2 rounded-md bg-red-50 p-2 text-sm text-red-900">
          <span>Remove {profile.name}? Chat no longer offers it; its threads stay readable.</span>
          <button
            type="button"
            className={danger}
            disabled={disabled}
            onClick={() => void send(path, "DELETE", undefined, `Agent ${profile.name} removed.`)}
          >
            Confirm remove
          </button>
          <button type="button" className={secondary} disabled={disabled} onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      ) : null}
      {editing ? (
        <ProfileForm
          view={view}
          profile={profile}
          disabled={disabled}
          onCancel={() => setEditing(false)}
          onSubmit={async ({ name: _name, ...patch }) => {
            const body: AgentProfilePatchBody = patch;
            if (await send(path, "PUT", body, `Agent ${profile.name} saved.`)) setEditing(false);
          }}
        />
      ) : null}
    </article>
  );
}

/** The form that adds an agent (no `profile`) or changes one (its name stays). */
function ProfileForm({
  view,
  profile,
  disabled,
  onSubmit,
  onCancel,
}: {
  view: SettingsView;
  profile?: AgentProfileView;
  disabled: boolean;
  onSubmit: (body: NewAgentProfileBody) => Promise<void>;
  onCancel: () => void;
}) {
  const id = useId();
  const [name, setName] = useState(profile?.name ?? "");
  const [description, setDescription] = useState(profile?.description ?? "");
  const [model, setModel] = useState(profile?.model ?? "");
  const [prompt, setPrompt] = useState(profile?.systemPrompt ?? "");
  const [steps, setSteps] = useState(profile?.maxSteps == null ? "" : String(profile.maxSteps));
  const tools = useToolSelection(profile ? profile.tools : null, view.tools);
  const title = profile ? `Edit ${profile.name}` : "Add an agent";

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // Empty fields mean the defaults: the built-in instructions and step limit.
    await onSubmit({
      name: name.trim(),
      description: description.trim(),
      model: model.trim(),
      systemPrompt: prompt.trim() ? prompt : null,
      maxSteps: steps.trim() === "" ? null : Number(steps),
      tools: tools.selection(),
    });
  };

  return (
    <form onSubmit={submit} aria-label={title} className="space-y-3 rounded-md border border-indigo-200 bg-indigo-50/40 p-3">
      <p className="text-sm font-semibold">{title}</p>
      <div className="grid gap-3 md:grid-cols-2">
        {profile ? null : (
          <div>
            <label htmlFor={`${id}-name`} className={label}>
              Name
            </label>
            <input
              id={`${id}-name`}
              className={mono}
              value={name}
              required
              maxLength={40}
              disabled={disabled}
              onChange={(e) => setName(e.target.value)}
              placeholder="billing"
            />
            <p className={hint}>1 to 40 letters, digits, dashes or underscores; its endpoint is /api/agui/NAME.</p>
          </div>
        )}
        {/* Editing keeps the name, so the model takes the whole row. */}
        <div className={profile ? "md:col-span-2" : undefined}>
          <label htmlFor={`${id}-model`} className={label}>
            Model
          </label>
          <input
            id={`${id}-model`}
            className={mono}
            value={model}
            required
            disabled={disabled}
            onChange={(e) => setModel(e.target.value)}
            placeholder="openai:gpt-5-mini"
          />
          <p className={hint}>
            <code>provider:model</code>, as for the assistant: <code>anthropic:claude-sonnet-4-5</code>, <code>openai:NAME</code> on an
            OpenAI-compatible server…
          </p>
        </div>
        <div className="md:col-span-2">
          <label htmlFor={`${id}-description`} className={label}>
            Description
          </label>
          <input
            id={`${id}-description`}
            className={input}
            value={description}
            maxLength={300}
            disabled={disabled}
            onChange={(e) => setDescription(e.target.value)}
            placeholder="What it is for, as Chat's picker shows it"
          />
        </div>
      </div>
      <div>
        <label htmlFor={`${id}-prompt`} className={label}>
          System prompt
        </label>
        <textarea
          id={`${id}-prompt`}
          rows={4}
          className={input}
          value={prompt}
          disabled={disabled}
          onChange={(e) => setPrompt(e.target.value)}
        />
        <p className={hint}>Empty: the built-in instructions (the assistant’s defaults).</p>
      </div>
      <StepLimitField id={id} value={steps} onChange={setSteps} disabled={disabled} fallback={DEFAULT_PROFILE_MAX_STEPS}>
        Model turns that call tools before the agent stops. Empty: {DEFAULT_PROFILE_MAX_STEPS}.
      </StepLimitField>
      <ToolPicker id={id} tools={view.tools} state={tools} disabled={disabled} listLabel="Tools the agent may call" />
      <div className="flex gap-2">
        <button type="submit" className={button} disabled={disabled}>
          {profile ? "Save agent" : "Add agent"}
        </button>
        <button type="button" className={secondary} disabled={disabled} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
