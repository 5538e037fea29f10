import Link from "next/link";
import { Fragment } from "react";
import { notFound } from "next/navigation";
import { ExportTabs } from "@/components/tools/export-tabs";
import { PolicyEditor } from "@/components/tools/policy-editor";
import { SchemaView } from "@/components/tools/schema-view";
import { TryTool } from "@/components/tools/try-tool";
import { requiresApproval } from "@/lib/approvals";
import type { McpBinding, McpHints } from "@/lib/integrations/mcp/plan-mcp-tools";
import { exportToolDefinitions } from "@/lib/integrations/tool-exports";
import { getServices } from "@/lib/services";
import { TARGETS } from "@/lib/tools";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props) {
  return { title: (await params).name };
}

export default async function ToolPage({ params }: Props) {
  const { name } = await params;
  const services = await getServices();
  const tool = services.registry.get(name);
  if (!tool) notFound();
  const source = tool.sourceId ? await services.sources.get(tool.sourceId) : undefined;
  // The local operator sees every recent call, as GET /api/tools/[name]/calls answers an operator.
  const calls = await services.callHistory.recent(tool.name);
  const { policy } = tool;

  return (
    <div className="max-w-5xl space-y-8">
      <header>
        <p className="text-sm">
          <Link href="/tools" className="text-indigo-700 hover:underline">
            Tools
          </Link>{" "}
          /
        </p>
        <h1 className="mt-1 font-mono text-2xl font-semibold tracking-tight">{tool.name}</h1>
        {tool.title !== tool.name ? <p className="text-lg text-slate-700">{tool.title}</p> : null}
        <ul aria-label="Facts" className="mt-2 flex flex-wrap gap-2 text-xs">
          <li className="rounded bg-slate-100 px-2 py-0.5">{tool.kind}</li>
          {source ? (
            <li className="rounded bg-slate-100 px-2 py-0.5">
              source:{" "}
              <Link href={`/tools?source=${encodeURIComponent(source.id)}`} className="text-indigo-700 hover:underline">
                {source.name}
              </Link>
            </li>
          ) : null}
          <li className="rounded bg-slate-100 px-2 py-0.5">{policy.effects}</li>
          {policy.idempotent ? <li className="rounded bg-slate-100 px-2 py-0.5">idempotent</li> : null}
          {policy.openWorld ? <li className="rounded bg-slate-100 px-2 py-0.5">open world</li> : null}
          {requiresApproval(tool) ? <li className="rounded bg-amber-100 px-2 py-0.5 text-amber-900">asks for approval</li> : null}
          {!tool.enabled ? <li className="rounded bg-red-100 px-2 py-0.5 text-red-800">disabled</li> : null}
          {policy.tags.map((tag) => (
            <li key={tag} className="rounded bg-indigo-50 px-2 py-0.5 text-indigo-800">
              #{tag}
            </li>
          ))}
        </ul>
        <p className="mt-4 max-w-3xl whitespace-pre-wrap text-sm text-slate-800">{tool.description || "This tool has no description."}</p>
      </header>

      {tool.kind === "mcp" ? <McpServerFacts binding={tool.binding} /> : null}

      <section aria-labelledby="try-heading" className="space-y-3">
        <h2 id="try-heading" className="text-lg font-semibold">
          Try it
        </h2>
        <TryTool name={tool.name} schema={tool.inputSchema} initialCalls={calls} />
      </section>

      <section aria-labelledby="schemas-heading" className="space-y-3">
        <h2 id="schemas-heading" className="text-lg font-semibold">
          Schemas
        </h2>
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          <div>
            <h3 className="mb-1 text-sm font-medium">Input</h3>
            <SchemaView label="Input schema" schema={tool.inputSchema} />
          </div>
          <div>
            <h3 className="mb-1 text-sm font-medium">Output</h3>
            {tool.outputSchema ? (
              <SchemaView label="Output schema" schema={tool.outputSchema} />
            ) : (
              <p className="text-sm text-slate-500">No output schema: any JSON value.</p>
            )}
          </div>
        </div>
      </section>

      <section aria-labelledby="policy-heading" className="space-y-3">
        <h2 id="policy-heading" className="text-lg font-semibold">
          Policy
        </h2>
        <PolicyEditor
          name={tool.name}
          confirm={policy.confirm}
          targets={TARGETS}
          saved={{
            approval: tool.approval,
            enabled: tool.enabled,
            targets: policy.targets,
            timeoutMs: policy.timeoutMs,
            retries: policy.retries,
          }}
        />
      </section>

      <section aria-labelledby="export-heading" className="space-y-3">
        <h2 id="export-heading" className="text-lg font-semibold">
          Export
        </h2>
        <p className="text-sm text-slate-600">
          The definition to paste into your own code for each model API, exactly as the console serves it.
        </p>
        <ExportTabs exports={exportToolDefinitions(tool)} />
      </section>
    </div>
  );
}

/** MCP's hints and the default each stands for when a server leaves it out. */
const HINT_ROWS: Array<{ key: keyof McpHints; label: string; absent: string }> = [
  { key: "readOnlyHint", label: "read-only", absent: "false: it may change things" },
  { key: "destructiveHint", label: "destructive", absent: "true unless read-only" },
  { key: "idempotentHint", label: "idempotent", absent: "false" },
  { key: "openWorldHint", label: "open world", absent: "true" },
];

/** What the tool's MCP server said about it: its own name there and its annotations, which the policy above was read from. */
function McpServerFacts({ binding }: { binding: Record<string, unknown> | null | undefined }) {
  const { remoteName, annotations } = (binding ?? {}) as Partial<McpBinding>;
  return (
    <section aria-labelledby="server-heading" className="space-y-2">
      <h2 id="server-heading" className="text-lg font-semibold">
        From its MCP server
      </h2>
      <dl className="grid max-w-xl grid-cols-[10rem_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-500">name there</dt>
        <dd className="font-mono">{remoteName ?? "unknown"}</dd>
        {HINT_ROWS.map(({ key, label, absent }) => (
          <Fragment key={key}>
            <dt className="text-slate-500">{label}</dt>
            <dd>
              {annotations === undefined ? (
                <span className="text-slate-500">not recorded: refresh the source to read it</span>
              ) : annotations[key] === undefined ? (
                <span className="text-slate-500">not given (MCP reads it as {absent})</span>
              ) : (
                <span className="font-mono">{String(annotations[key])}</span>
              )}
            </dd>
          </Fragment>
        ))}
      </dl>
    </section>
  );
}
