import Link from "next/link";
import { notFound } from "next/navigation";
import { LocalTime } from "@/components/common/local-time";
import { RunReplay } from "@/components/runs/run-replay";
import { tokenDetail, tokenTotal } from "@/components/runs/token-usage";
import { mayActFor } from "@/lib/auth";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../../page-caller";

export const dynamic = "force-dynamic";
export const metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const services = await getServices();
  const run = await services.runs.getRun(id);
  if (!run || !mayActFor(await requireCaller(), run.principal)) notFound();
  const events = await services.runs.events(id);
  const outcome = (run.outcome as { type?: string } | null)?.type;
  const detail = tokenDetail(run.usage);
  return (
    <div className="max-w-6xl">
      <p className="text-sm">
        <Link className="text-indigo-700 underline" href="/runs">
          Runs
        </Link>{" "}
        / <span className="font-mono">{run.id}</span>
      </p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight">
        Run of <span className="font-mono">{run.agent}</span>
      </h1>
      <dl className="mt-2 grid grid-cols-2 gap-x-6 gap-y-1 text-sm sm:grid-cols-4">
        <dt className="text-slate-500">Status</dt>
        <dd data-status={run.status}>
          {run.status}
          {outcome ? ` (${outcome})` : ""}
        </dd>
        <dt className="text-slate-500">Principal</dt>
        <dd>{run.principal}</dd>
        <dt className="text-slate-500">Thread</dt>
        <dd>
          <Link className="text-indigo-700 underline" href={`/chat/${encodeURIComponent(run.threadId)}`}>
            {run.threadId}
          </Link>
        </dd>
        <dt className="text-slate-500">Started</dt>
        <dd>
          <LocalTime at={run.startedAt} />
        </dd>
        <dt className="text-slate-500">Duration</dt>
        <dd>{run.finishedAt ? `${((run.finishedAt - run.startedAt) / 1000).toFixed(2)} s` : "running"}</dd>
        <dt className="text-slate-500">Tool calls</dt>
        <dd>{run.toolCallCount}</dd>
        <dt className="text-slate-500">Tokens</dt>
        <dd>
          {tokenTotal(run.usage)}
          {detail ? <span className="block text-xs text-slate-500">{detail}</span> : null}
        </dd>
        {run.error ? (
          <>
            <dt className="text-slate-500">Error</dt>
            <dd>{run.error}</dd>
          </>
        ) : null}
      </dl>
      <div className="mt-6">
        {/* Keyed on what it was given: when a followed run ends, the refreshed page replays the whole record afresh. */}
        <RunReplay
          key={`${run.status}:${events.length}`}
          runId={run.id}
          events={events}
          inputState={run.inputState}
          live={run.status === "running"}
        />
      </div>
    </div>
  );
}
