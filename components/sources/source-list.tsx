"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { LocalTime } from "../common/local-time";
import type { SourceSummary } from "@/lib/api/contracts";
import { ErrorBox } from "../common/error-box";
import { requestJson } from "../common/request-json";
import { cardOfSource } from "./a2a-form";

/** Imported sources with their tool counts and status; refresh one, or remove it with its tools after a confirmation. */
export function SourceList({ sources }: { sources: SourceSummary[] }) {
  const router = useRouter();
  const [busy, setBusy] = useState<string>();
  const [confirming, setConfirming] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<{ source: string; error: unknown }>();

  const act = async (source: SourceSummary, action: "refresh" | "remove") => {
    setBusy(source.id);
    setError(undefined);
    setNotice(undefined);
    try {
      if (action === "refresh") {
        const answer = await requestJson<{ tools: unknown[]; test?: { detail: string } }>(
          `/api/sources/${encodeURIComponent(source.id)}/refresh`,
          { method: "POST", body: {} },
        );
        setNotice(
          answer.test ? `Checked ${source.name}: ${answer.test.detail}` : `Refreshed ${source.name}: ${answer.tools.length} tools.`,
        );
      } else {
        const answer = await requestJson<{ tools: number }>(`/api/sources/${encodeURIComponent(source.id)}`, { method: "DELETE" });
        setNotice(
          source.kind === "agui"
            ? `Removed ${source.name} and its agent ${remoteAgentName(source)}.`
            : `Removed ${source.name} and its ${answer.tools} ${answer.tools === 1 ? "tool" : "tools"}.`,
        );
        setConfirming(undefined);
      }
    } catch (e) {
      setError({ source: source.name, error: e });
    } finally {
      setBusy(undefined);
      router.refresh();
    }
  };

  return (
    <div className="space-y-3">
      <p role="status" className="text-sm text-emerald-800">
        {notice ?? ""}
      </p>
      {error ? <ErrorBox error={error.error} title={`${error.source}: the action failed`} /> : null}
      {sources.length === 0 ? (
        <p className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-600">
          No sources yet. Import an OpenAPI document to turn its operations into tools, add an MCP server or an A2A agent to use its tools,
          or add a remote AG-UI agent to chat with it here.
        </p>
      ) : (
        <table className="w-full border-collapse overflow-hidden rounded-lg border border-slate-200 bg-white text-left text-sm">
          <caption className="sr-only">Imported sources</caption>
          <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th scope="col" className="px-3 py-2">
                Name
              </th>
              <th scope="col" className="px-3 py-2">
                Kind
              </th>
              <th scope="col" className="px-3 py-2">
                Location
              </th>
              <th scope="col" className="px-3 py-2">
                Tools
              </th>
              <th scope="col" className="px-3 py-2">
                Status
              </th>
              <th scope="col" className="px-3 py-2">
                Last refresh
              </th>
              <th scope="col" className="px-3 py-2">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sources.map((source) => (
              <tr key={source.id} className="border-t border-slate-100 align-top">
                <th scope="row" className="px-3 py-2 font-medium">
                  {source.name}
                  {source.auth ? (
                    <span className="block text-xs font-normal text-slate-500">
                      auth: {String(source.auth.kind)} {source.auth.kind === "bearer" ? "" : String(source.auth.name)}
                      {source.hasSecret ? " (secret stored)" : ""}
                    </span>
                  ) : null}
                  {source.kind === "a2a" ? <AgentCardSummary options={source.options} /> : null}
                </th>
                <td className="px-3 py-2">{source.kind}</td>
                <td className="max-w-64 truncate px-3 py-2 font-mono text-xs" title={source.location}>
                  {source.location}
                  {Array.isArray(source.options.allow) && source.options.allow.length ? (
                    <span className="block font-sans text-slate-500">also reaches {source.options.allow.join(", ")}</span>
                  ) : null}
                </td>
                <td className="px-3 py-2">
                  {source.kind === "agui" ? (
                    <Link
                      href={`/chat/${crypto.randomUUID()}?agent=${encodeURIComponent(remoteAgentName(source))}`}
                      className="font-mono text-xs text-indigo-700 hover:underline"
                      title="A remote agent: its runs are forwarded to the endpoint"
                    >
                      {remoteAgentName(source)}
                    </Link>
                  ) : (
                    <Link href={`/tools?source=${encodeURIComponent(source.id)}`} className="text-indigo-700 hover:underline">
                      {source.toolCount} {source.toolCount === 1 ? "tool" : "tools"}
                    </Link>
                  )}
                </td>
                <td className="px-3 py-2">
                  <span
                    className={
                      source.status === "ok"
                        ? "text-emerald-700"
                        : source.status === "error"
                          ? "font-medium text-red-700"
                          : "text-amber-700"
                    }
                  >
                    {source.status}
                  </span>
                  {source.status === "error" && source.statusMessage ? (
                    <span className="block max-w-64 text-xs text-red-700">{source.statusMessage}</span>
                  ) : null}
                </td>
                <td className="px-3 py-2 text-xs text-slate-600">
                  {source.lastRefreshAt ? <LocalTime at={source.lastRefreshAt} style="short" /> : "never"}
                </td>
                <td className="px-3 py-2">
                  {confirming === source.id ? (
                    <div role="group" aria-label={`Confirm removing ${source.name}`} className="space-y-2">
                      <p className="text-xs">
                        {source.kind === "agui"
                          ? `Remove ${source.name} and its agent ${remoteAgentName(source)}? Its approvals still waiting are cancelled.`
                          : `Remove ${source.name} and its ${source.toolCount} ${source.toolCount === 1 ? "tool" : "tools"}?`}
                      </p>
                      <div className="flex gap-2">
                        <button
                          type="button"
                          disabled={busy === source.id}
                          className="rounded-md bg-red-700 px-2 py-1 text-xs font-medium text-white hover:bg-red-800 disabled:opacity-50"
                          onClick={() => void act(source, "remove")}
                        >
                          {busy === source.id ? "Removing…" : "Confirm remove"}
                        </button>
                        <button
                          type="button"
                          autoFocus
                          className="rounded-md border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100"
                          onClick={() => setConfirming(undefined)}
                        >
                          Cancel
                        </button>
                      </div>
                    </div>
                  ) : (
                    <div className="flex gap-2">
                      {source.kind === "openapi" || source.kind === "mcp" || source.kind === "a2a" || source.kind === "agui" ? (
                        <button
                          type="button"
                          disabled={busy !== undefined}
                          aria-label={`${source.kind === "agui" ? "Check" : "Refresh"} ${source.name}`}
                          className="rounded-md border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100 disabled:opacity-50"
                          onClick={() => void act(source, "refresh")}
                        >
                          {busy === source.id ? "Refreshing…" : source.kind === "agui" ? "Check" : "Refresh"}
                        </button>
                      ) : null}
                      <button
                        type="button"
                        disabled={busy !== undefined}
                        aria-label={`Remove ${source.name}`}
                        className="rounded-md border border-red-300 px-2 py-1 text-xs text-red-800 hover:bg-red-50 disabled:opacity-50"
                        onClick={() => setConfirming(source.id)}
                      >
                        Remove
                      </button>
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** The chat agent of a remote AG-UI source (lib/integrations/agui-remote names it so). */
function remoteAgentName(source: Pick<SourceSummary, "name">): string {
  return `remote:${source.name}`;
}

/** An A2A agent's card as its source keeps it: name, version, protocol and skills. */
function AgentCardSummary({ options }: { options: Record<string, unknown> }) {
  const card = cardOfSource(options);
  if (!card) return null;
  return (
    <details className="mt-1 text-xs font-normal text-slate-600">
      <summary className="cursor-pointer">
        Card: {card.name}
        {card.version ? ` ${card.version}` : ""} (A2A {card.protocolVersion || "?"}), {card.skills.length}{" "}
        {card.skills.length === 1 ? "skill" : "skills"}
      </summary>
      {card.description ? <p className="mt-1">{card.description}</p> : null}
      <ul aria-label={`Skills of ${card.name}`} className="mt-1 list-disc pl-4">
        {card.skills.map((skill) => (
          <li key={skill.id} title={skill.description}>
            {skill.name} <span className="font-mono">({skill.id})</span>
          </li>
        ))}
      </ul>
    </details>
  );
}
