import { ToolBrowser } from "@/components/tools/tool-browser";
import { filtersFrom, PAGE_SIZE } from "@/components/tools/tool-filters";
import { listTools, ToolListQuery } from "@/lib/api/tools";
import { getServices } from "@/lib/services";
import { TARGETS } from "@/lib/tools";

export const dynamic = "force-dynamic";
export const metadata = { title: "Tools" };

export default async function ToolsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const services = await getServices();
  const sources = (await services.sources.list()).map((s) => ({ id: s.id, name: s.name }));
  const kinds = [...new Set(services.registry.all().map((t) => t.kind))].sort();
  const filters = filtersFrom(await searchParams);
  // The first page is rendered here, so the list shows at once; filters the API refuses are left to the browser, which shows the error.
  const query = ToolListQuery.safeParse({
    ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v.trim())),
    limit: String(PAGE_SIZE),
  });
  const firstPage = query.success ? await listTools(services.registry, query.data) : undefined;
  return (
    <div className="max-w-5xl">
      <h1 className="text-2xl font-semibold tracking-tight">Tools</h1>
      <p className="mt-1 mb-6 text-sm text-slate-600">
        Every tool in the console’s registry: built in or imported, whether its agents call it over AG-UI or the console serves it over MCP
        and A2A (the Target filter tells them apart). Open one to read its schemas, set its policy, copy its definition for OpenAI,
        Anthropic, Gemini, MCP or A2A, or try it.
      </p>
      <ToolBrowser initial={filters} firstPage={firstPage} sources={sources} kinds={kinds} targets={TARGETS} />
    </div>
  );
}
