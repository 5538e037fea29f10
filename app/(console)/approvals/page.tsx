import { ApprovalsInbox } from "@/components/approvals/approvals-inbox";
import { approvalView } from "@/lib/api/approvals";
import { ScopeNotice } from "@/components/common/scope-notice";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../page-caller";

export const dynamic = "force-dynamic";
export const metadata = { title: "Approvals" };

export default async function ApprovalsPage() {
  const caller = await requireCaller();
  if (!caller.scopes.includes("approvals"))
    return <ScopeNotice title="Approvals" scope="approvals" what="Reading and deciding approvals" />;
  const services = getServices();
  const initial = services.approvals.list({ status: "pending", limit: 50 }).items.map((a) => approvalView(a, services.registry));
  const tools = services.registry.all().map((t) => ({ name: t.name, title: t.title, inputSchema: t.inputSchema }));
  return (
    <div className="max-w-5xl">
      <h1 className="text-2xl font-semibold tracking-tight">Approvals</h1>
      <p className="mt-1 mb-4 text-sm text-slate-600">
        Every call that waits for a person, from every thread, agent and surface. Decisions reach the waiting run at once.
      </p>
      <ApprovalsInbox initial={initial} tools={tools} />
    </div>
  );
}
