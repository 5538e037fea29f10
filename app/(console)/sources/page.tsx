import { A2aClientConfig } from "@/components/sources/a2a-client-config";
import { AddA2ADialog } from "@/components/sources/add-a2a-dialog";
import { AddAguiDialog } from "@/components/sources/add-agui-dialog";
import { AddMcpDialog } from "@/components/sources/add-mcp-dialog";
import { ImportOpenApiDialog } from "@/components/sources/import-openapi-dialog";
import { McpClientConfig } from "@/components/sources/mcp-client-config";
import { SourceList } from "@/components/sources/source-list";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../page-caller";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sources" };

export default async function SourcesPage() {
  const caller = await requireCaller();
  const services = await getServices();
  const sources = await services.sources.list();
  return (
    <div className="max-w-5xl space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Sources</h1>
          <p className="mt-1 text-sm text-slate-600">
            APIs, MCP servers and A2A agents imported as tools, and remote AG-UI agents to chat with. Each OpenAPI operation, each MCP tool
            and each A2A skill becomes one tool; refresh reads the document or the server again and keeps what you set on its tools.
          </p>
        </div>
        <div className="flex gap-2">
          <AddAguiDialog admin={caller.role === "admin"} />
          <AddA2ADialog admin={caller.role === "admin"} />
          <AddMcpDialog admin={caller.role === "admin"} />
          <ImportOpenApiDialog admin={caller.role === "admin"} />
        </div>
      </div>
      <SourceList sources={sources} />
      <div id="serve" className="space-y-6">
        <McpClientConfig publicUrl={services.config.PUBLIC_URL} local={caller.id === "local"} />
        <A2aClientConfig publicUrl={services.config.PUBLIC_URL} local={caller.id === "local"} />
      </div>
    </div>
  );
}
