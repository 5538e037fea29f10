import Link from "next/link";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";

export default async function OverviewPage() {
  const services = await getServices();
  const tools = services.registry.all();
  const enabled = tools.filter((t) => t.enabled).length;
  const pending = await services.approvals.countPending();
  const cards = [
    { label: "Tools", value: tools.length, detail: `${enabled} enabled`, href: "/tools" },
    {
      label: "Pending approvals",
      value: pending,
      detail: pending === 1 ? "call waits for a person" : "calls wait for a person",
      href: "/approvals",
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
