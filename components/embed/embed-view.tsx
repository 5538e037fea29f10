"use client";

import Link from "next/link";
import { useId, useMemo, useState } from "react";
import { EMBED_SCOPE_CHOICES, type CreatedToken } from "@/lib/api/contracts";
import { CopyButton } from "../common/copy-button";
import { NewTokenNotice } from "../common/new-token-notice";
import { requestJson } from "../common/request-json";
import { useSubmit } from "../common/use-submit";
import { TabList } from "../common/tab-list";
import { embedSnippets, TOKEN_VARIABLE, type Snippets } from "./snippets";
import { WidgetPanel } from "./widget-panel";

export interface EmbeddableAgent {
  name: string;
  description: string;
  /** The agent's AG-UI endpoint as other apps reach it. */
  url: string;
}

type SnippetTab = keyof Snippets | "widget";

const SNIPPET_TABS: ReadonlyArray<{ key: SnippetTab; label: string; about: string }> = [
  {
    key: "curl",
    label: "curl",
    about: "One run from a shell: the headers the endpoint wants and a minimal RunAgentInput. The events print as they stream.",
  },
  {
    key: "node",
    label: "Node (@ag-ui/client)",
    about:
      "A Node 20+ program on @ag-ui/client's HttpAgent: it sends a message, prints the text and tool calls as they stream, and when a call waits for approval (the run ends with an interrupt) it approves it and prints the final answer.",
  },
  {
    key: "react",
    label: "React (CopilotKit)",
    about:
      "A React component on CopilotKit's v2 API (@copilotkit/react-core 1.74) with an approval card. Its comments list what CopilotKit does differently; it is heavy (about 600 KB gzipped).",
  },
  {
    key: "widget",
    label: "Widget",
    about:
      "For any HTML page: a script tag and an <agui-chat> element (about 80 KB gzipped) with the chat, tool calls and approval cards. It takes an embed token, minted here for this agent only.",
  },
];

/**
 * The Embed page's body: pick an agent, see its endpoint, create a token for it (admins), and copy
 * ready snippets filled with the endpoint and, right after creation, the token (shown only then).
 */
export function EmbedView({
  agents,
  canCreateTokens,
  usingPublicUrl,
}: {
  agents: EmbeddableAgent[];
  canCreateTokens: boolean;
  usingPublicUrl: boolean;
}) {
  const [agentName, setAgentName] = useState(agents[0]?.name ?? "");
  const [created, setCreated] = useState<CreatedToken>();
  const [tab, setTab] = useState<SnippetTab>("curl");
  const ids = useId();
  const agent = agents.find((a) => a.name === agentName) ?? agents[0];
  const snippets = useMemo(
    () => agent && embedSnippets({ url: agent.url, agent: agent.name, token: created?.token }),
    [agent, created?.token],
  );
  if (!agent || !snippets) return <p className="text-sm text-slate-600">The console serves no agent.</p>;
  const about = SNIPPET_TABS.find((t) => t.key === tab)!;

  return (
    <div className="space-y-6">
      <section aria-labelledby={`${ids}-endpoint`} className="space-y-3 rounded-lg border border-slate-200 bg-white p-5">
        <h2 id={`${ids}-endpoint`} className="text-lg font-semibold">
          1. Endpoint
        </h2>
        <label className="flex items-center gap-3 text-sm font-medium text-slate-700">
          Agent
          <select
            className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
            value={agent.name}
            onChange={(e) => setAgentName(e.target.value)}
          >
            {agents.map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        {agent.description ? <p className="text-sm text-slate-600">{agent.description}</p> : null}
        <div className="flex flex-wrap items-center gap-3">
          <code data-testid="endpoint-url" className="rounded bg-slate-100 px-2 py-1 text-sm break-all">
            {agent.url}
          </code>
          <CopyButton text={agent.url} what="the endpoint URL" />
        </div>
        <p className="text-xs text-slate-500">
          {usingPublicUrl
            ? "Built from PUBLIC_URL."
            : "Built from the address this page was opened at; set PUBLIC_URL when other apps reach the console under another address."}{" "}
          <code>GET …/api/agui</code> lists the agents.
        </p>
      </section>

      <section aria-labelledby={`${ids}-token`} className="space-y-3 rounded-lg border border-slate-200 bg-white p-5">
        <h2 id={`${ids}-token`} className="text-lg font-semibold">
          2. Token
        </h2>
        {canCreateTokens ? (
          <CreateTokenForm key={agent.name} agentName={agent.name} created={created} onCreated={setCreated} />
        ) : (
          <p role="note" className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
            Creating a token needs the <code>admin</code> scope. Ask whoever runs this console for a token with the <code>agui</code> scope,
            then set it as <code>{TOKEN_VARIABLE}</code> for the snippets below.
          </p>
        )}
      </section>

      <section aria-labelledby={`${ids}-snippets`} className="space-y-3 rounded-lg border border-slate-200 bg-white p-5">
        <h2 id={`${ids}-snippets`} className="text-lg font-semibold">
          3. Snippets
        </h2>
        <p className="text-sm text-slate-600">
          {created
            ? `Filled with the endpoint of ${agent.name} and the token "${created.name}".`
            : `Filled with the endpoint of ${agent.name}; they read the token from ${TOKEN_VARIABLE}.`}
        </p>
        <TabList label="Snippet" tabs={SNIPPET_TABS} selected={tab} onSelect={setTab} panelId={`${ids}-panel`} />
        <div role="tabpanel" id={`${ids}-panel`} aria-labelledby={`${ids}-panel-tab-${tab}`} className="space-y-3">
          <p className="text-sm text-slate-600">{about.about}</p>
          {tab === "widget" ? (
            <WidgetPanel agent={agent.name} url={agent.url} canMint={canCreateTokens} />
          ) : (
            <>
              <pre
                data-testid={`snippet-${tab}`}
                className="max-h-[28rem] overflow-auto rounded-md bg-slate-900 p-4 text-xs leading-relaxed text-slate-100"
              >
                <code>{snippets[tab]}</code>
              </pre>
              <CopyButton text={snippets[tab]} what={`the ${about.label} snippet`} />
            </>
          )}
        </div>
      </section>
    </div>
  );
}

/** The admin's form: a name and a scope choice limited to what an embedding app needs. */
function CreateTokenForm({
  agentName,
  created,
  onCreated,
}: {
  agentName: string;
  created: CreatedToken | undefined;
  onCreated: (token: CreatedToken) => void;
}) {
  const [name, setName] = useState(`embed-${agentName.replace(/[^A-Za-z0-9_.-]/g, "-")}`.slice(0, 64));
  const [choice, setChoice] = useState(0);
  const ids = useId();
  const { busy, error, submit } = useSubmit(async () =>
    onCreated(
      await requestJson<CreatedToken>("/api/tokens", { method: "POST", body: { name, scopes: EMBED_SCOPE_CHOICES[choice]!.scopes } }),
    ),
  );

  return (
    <div className="space-y-3">
      <form onSubmit={submit} className="space-y-3" aria-label="Create a token">
        <div className="flex flex-wrap items-end gap-4">
          <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
            Token name
            <input
              className="w-64 rounded-md border border-slate-300 px-2 py-1.5 text-sm font-normal"
              value={name}
              onChange={(e) => setName(e.target.value)}
              aria-describedby={`${ids}-name-help`}
              required
              maxLength={64}
            />
          </label>
          <fieldset className="text-sm">
            <legend className="font-medium text-slate-700">Scopes</legend>
            {EMBED_SCOPE_CHOICES.map((option, index) => (
              <label key={option.label} className="mt-1 flex items-center gap-2 text-slate-700">
                <input type="radio" name={`${ids}-scopes`} checked={choice === index} onChange={() => setChoice(index)} />
                {option.label}
              </label>
            ))}
          </fieldset>
          <button
            type="submit"
            disabled={busy}
            className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
          >
            {busy ? "Creating…" : "Create a token"}
          </button>
        </div>
        <p id={`${ids}-name-help`} className="text-xs text-slate-500">
          1 to 64 letters, digits, “.”, “_” or “-”; it names the app in the approvals and run records. A token can answer its own runs’
          approvals; <code>approvals</code> lets it decide anyone’s.{" "}
          <Link href="/settings#tokens" className="text-indigo-700 underline">
            Settings
          </Link>{" "}
          lists the tokens and revokes them.
        </p>
        {error ? (
          <p role="alert" className="text-sm text-red-700">
            {error}
          </p>
        ) : null}
      </form>
      {created ? <NewTokenNotice token={created} /> : null}
    </div>
  );
}
