import { ApprovalsInbox } from "@/components/approvals/approvals-inbox";
import { approvalView } from "@/lib/api/approvals";
import { ScopeNotice } from "@/components/common/scope-notice";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../page-caller";

export const dynamic = "force-dynamic";
export const metadata = { title: "Approvals" };

/** `?approval=ID` is the link MCP and A2A clients are given to the approval a call waits on. */
export default async function ApprovalsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const caller = await requireCaller();
  if (!caller.scopes.includes("approvals"))
    return <ScopeNotice title="Approvals" scope="approvals" what="Reading and deciding approvals" />;
  const services = await getServices();
  const initial = (await services.approvals.list({ status: "pending", limit: 50 })).items.map((a) => approvalView(a, services.registry));
  const linked = linkedApproval((await searchParams).approval);
  const found = linked === undefined ? undefined : await services.approvals.get(linked);
  const focus = linked === undefined ? undefined : { id: linked, ...(found ? { approval: approvalView(found, services.registry) } : {}) };
  const tools = services.registry.all().map((t) => ({ name: t.name, title: t.title, inputSchema: t.inputSchema }));
  return (
    <div className="max-w-5xl">
      <h1 className="text-2xl font-semibold tracking-tight">Approvals</h1>
      <p className="mt-1 mb-4 text-sm text-slate-600">
        Every call that waits for a person, from every thread, agent and surface. Decisions reach the waiting run at once.
      </p>
      <ApprovalsInbox initial={initial} tools={tools} focus={focus} />
    </div>
  );
}

/** The approval id a link names: one short value, else none (a page never fails on a bad link). */
function linkedApproval(value: string | string[] | undefined): string | undefined {
  const id = Array.isArray(value) ? value[0] : value;
  return id && id.length <= 200 ? id : undefined;
}
