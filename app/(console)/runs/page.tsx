import Link from "next/link";
import { RunStartLink } from "@/components/runs/run-start-link";
import { tokenTotal } from "@/components/runs/token-usage";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../page-caller";
import type { RunStatus } from "@/lib/db/runs";

export const dynamic = "force-dynamic";
export const metadata = { title: "Runs" };

const STATUSES: RunStatus[] = ["running", "finished", "interrupted", "error", "cancelled"];

export default async function RunsPage({
  searchParams,
}: {
  searchParams: Promise<{ agent?: string; status?: string; principal?: string; cursor?: string }>;
}) {
  const query = await searchParams;
  const services = await getServices();
  const caller = await requireCaller();
  // An operator sees every caller's runs; anyone else only their own, whatever the filter says.
  if (!caller.operator) query.principal = caller.id;
  const status = STATUSES.includes(query.status as RunStatus) ? (query.status as RunStatus) : undefined;
  let page;
  try {
    page = await services.runs.listRuns({
      agent: query.agent || undefined,
      status,
      principal: query.principal || undefined,
      cursor: query.cursor,
      limit: 50,
    });
  } catch {
    page = await services.runs.listRuns({ agent: query.agent || undefined, status, principal: query.principal || undefined, limit: 50 });
  }
  const agents = services.agents.list().map((a) => a.name);
  const next = page.nextCursor
    ? `/runs?${new URLSearchParams({ ...(query.agent && { agent: query.agent }), ...(status && { status }), ...(query.principal && { principal: query.principal }), cursor: page.nextCursor })}`
    : undefined;
  return (
    <div className="max-w-6xl">
      <h1 className="text-2xl font-semibold tracking-tight">Runs</h1>
      <p className="mt-1 text-sm text-slate-600">Every agent run, newest first. Open one to replay its recorded events.</p>
      <form className="mt-4 flex flex-wrap items-end gap-3" aria-label="Filter runs">
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Agent
          <select name="agent" defaultValue={query.agent ?? ""} className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm">
            <option value="">All agents</option>
            {agents.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Status
          <select name="status" defaultValue={status ?? ""} className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm">
            <option value="">All statuses</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Principal
          <input name="principal" defaultValue={query.principal ?? ""} className="rounded-md border border-slate-300 px-2 py-1.5 text-sm" />
        </label>
        <button type="submit" className="rounded-md bg-slate-800 px-3 py-1.5 text-sm font-medium text-white">
          Filter
        </button>
      </form>
      <table className="mt-4 w-full border-collapse overflow-hidden rounded-lg bg-white text-left text-sm shadow-sm ring-1 ring-slate-200">
        <caption className="sr-only">Runs</caption>
        <thead className="bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Started</th>
            <th className="px-3 py-2">Agent</th>
            <th className="px-3 py-2">Thread</th>
            <th className="px-3 py-2">Principal</th>
            <th className="px-3 py-2">Status</th>
            <th className="px-3 py-2">Outcome</th>
            <th className="px-3 py-2">Duration</th>
            <th className="px-3 py-2">Tool calls</th>
            <th className="px-3 py-2">Tokens</th>
          </tr>
        </thead>
        <tbody>
          {page.items.length === 0 ? (
            <tr>
              <td colSpan={9} className="px-3 py-4 text-slate-500">
                No runs match.
              </td>
            </tr>
          ) : null}
          {page.items.map((run) => (
            <tr key={run.id} className="border-t border-slate-100">
              <td className="px-3 py-2">
                <RunStartLink run={run} />
              </td>
              <td className="px-3 py-2 font-mono">{run.agent}</td>
              <td className="max-w-40 truncate px-3 py-2">
                <Link className="text-indigo-700 underline" href={`/chat/${encodeURIComponent(run.threadId)}`}>
                  {run.threadId}
                </Link>
              </td>
              <td className="px-3 py-2">{run.principal}</td>
              <td className="px-3 py-2" data-status={run.status}>
                {run.status}
              </td>
              <td className="px-3 py-2">{(run.outcome as { type?: string } | null)?.type ?? (run.error ? "error" : "")}</td>
              <td className="px-3 py-2">{run.finishedAt ? `${((run.finishedAt - run.startedAt) / 1000).toFixed(2)} s` : "…"}</td>
              <td className="px-3 py-2">{run.toolCallCount}</td>
              <td className="px-3 py-2">{tokenTotal(run.usage)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {next ? (
        <Link href={next} className="mt-3 inline-block rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100">
          Older runs
        </Link>
      ) : null}
    </div>
  );
}
