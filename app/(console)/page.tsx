import Link from "next/link";
import { RunStartLink } from "@/components/runs/run-start-link";
import type { SourceKind } from "@/lib/db/sources";
import { getServices } from "@/lib/services";
import { requireCaller } from "../page-caller";

export const dynamic = "force-dynamic";

/** How the overview names each kind of source. */
const SOURCE_KINDS: ReadonlyArray<[SourceKind, string]> = [
  ["openapi", "OpenAPI"],
  ["mcp", "MCP"],
  ["a2a", "A2A"],
  ["agui", "AG-UI"],
];

/** Runs counted as running now: the card says "at least" past this many. */
const RUNNING_SHOWN = 100;
const RECENT_RUNS = 5;

export default async function OverviewPage() {
  const services = await getServices();
  const caller = await requireCaller();
  // As on /runs and in the navigation: an operator sees every caller's runs, anyone else their own;
  // the approvals count is for those who may decide.
  const principal = caller.operator ? undefined : caller.id;
  const tools = services.registry.all();
  const enabled = tools.filter((t) => t.enabled).length;
  const [pending, sources, running, recent] = await Promise.all([
    caller.scopes.includes("approvals") ? services.approvals.countPending() : 0,
    services.sources.list(),
    services.runs.listRuns({ status: "running", principal, limit: RUNNING_SHOWN }),
    services.runs.listRuns({ principal, limit: RECENT_RUNS }),
  ]);
  const byKind = SOURCE_KINDS.map(([kind, label]) => [label, sources.filter((s) => s.kind === kind).length] as const).filter(
    ([, n]) => n > 0,
  );
  const runningCount = running.items.length;
  const cards = [
    { label: "Tools", value: String(tools.length), detail: `${enabled} enabled`, href: "/tools" },
    {
      label: "Pending approvals",
      value: String(pending),
      detail: pending === 1 ? "call waits for a person" : "calls wait for a person",
      href: "/approvals",
    },
    {
      label: "Sources",
      value: String(sources.length),
      detail: byKind.length ? byKind.map(([label, n]) => `${n} ${label}`).join(", ") : "none imported yet",
      href: "/sources",
    },
    {
      label: "Runs now",
      value: running.nextCursor ? `${RUNNING_SHOWN}+` : String(runningCount),
      detail: runningCount === 1 ? "run streaming" : "runs streaming",
      href: "/runs?status=running",
    },
  ];
  return (
    <div className="max-w-4xl">
      <h1 className="text-2xl font-semibold tracking-tight">Overview</h1>
      <p className="mt-1 text-sm text-slate-600">
        The console is up. Version {services.version}, database <code className="font-mono">{services.config.CONSOLE_DB}</code>.
      </p>
      <dl className="mt-6 grid grid-cols-1 gap-4 sm:grid-cols-2">
        {cards.map((card) => (
          <div key={card.label} className="rounded-lg border border-slate-200 bg-white p-5">
            <dt className="text-sm font-medium text-slate-600">{card.label}</dt>
            <dd className="mt-1 text-3xl font-semibold" data-testid={`stat-${card.label.toLowerCase().replace(/\s+/g, "-")}`}>
              {card.value}
            </dd>
            <dd className="mt-1 text-sm text-slate-500">
              {card.detail} ·{" "}
              <Link className="text-indigo-700 underline" href={card.href}>
                open
              </Link>
            </dd>
          </div>
        ))}
      </dl>
      <section className="mt-8" aria-labelledby="connect-heading">
        <h2 id="connect-heading" className="text-lg font-semibold">
          Where to go from here
        </h2>
        <ul className="mt-3 grid grid-cols-1 gap-3 text-sm sm:grid-cols-2">
          <li className="rounded-lg border border-slate-200 bg-white p-4">
            <Link className="font-medium text-indigo-700 underline" href="/chat">
              Chat with an agent
            </Link>
            <p className="mt-1 text-slate-600">Every tool call streams as a timeline; a call that needs a person pauses the run.</p>
          </li>
          <li className="rounded-lg border border-slate-200 bg-white p-4">
            <Link className="font-medium text-indigo-700 underline" href="/sources">
              Import tools
            </Link>
            <p className="mt-1 text-slate-600">
              From an OpenAPI document, an MCP server or an A2A agent; then browse and try them on Tools.
            </p>
          </li>
          <li className="rounded-lg border border-slate-200 bg-white p-4">
            <Link className="font-medium text-indigo-700 underline" href="/embed">
              Put an agent in your app
            </Link>
            <p className="mt-1 text-slate-600">Its AG-UI endpoint, a token and snippets for curl, Node, React and a script tag.</p>
          </li>
          <li className="rounded-lg border border-slate-200 bg-white p-4">
            <Link className="font-medium text-indigo-700 underline" href="/sources#serve">
              Serve these tools over MCP and A2A
            </Link>
            <p className="mt-1 text-slate-600">
              The configuration an MCP client needs and a call an A2A agent can make, with approvals decided here.
            </p>
          </li>
        </ul>
      </section>
      {recent.items.length ? (
        <section className="mt-8" aria-labelledby="runs-heading">
          <h2 id="runs-heading" className="text-lg font-semibold">
            Latest runs
          </h2>
          <ul className="mt-3 divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
            {recent.items.map((run) => (
              <li key={run.id} className="flex items-center justify-between px-4 py-3 text-sm">
                <span className="min-w-0 truncate">
                  <RunStartLink run={run} />
                  <span className="ml-2 font-mono">{run.agent}</span>
                  <span className="ml-2 text-slate-500">by {run.principal}</span>
                </span>
                <span className="ml-4 shrink-0 text-xs text-slate-500" data-status={run.status}>
                  {run.status}
                  {run.toolCallCount ? ` · ${run.toolCallCount} tool call${run.toolCallCount === 1 ? "" : "s"}` : ""}
                </span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section className="mt-8" aria-labelledby="tools-heading">
        <h2 id="tools-heading" className="text-lg font-semibold">
          Registered tools
        </h2>
        <ul className="mt-3 divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
          {tools.slice(0, 20).map((tool) => (
            <li key={tool.name} className="flex items-center justify-between px-4 py-3 text-sm">
              <span>
                <span className="font-mono font-medium">{tool.name}</span>
                <span className="ml-2 text-slate-500">{tool.description}</span>
              </span>
              <span className="ml-4 shrink-0 text-xs text-slate-500">
                {tool.policy.effects}
                {tool.policy.confirm ? " · asks for approval" : ""}
              </span>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
