import Link from "next/link";
import { ScopeNotice } from "@/components/common/scope-notice";
import { CopilotKitPanel } from "@/components/embed/copilotkit-panel";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../../page-caller";

export const dynamic = "force-dynamic";
export const metadata = { title: "CopilotKit" };

/** The agent the page talks to when the address names none (or one the console does not have). */
const PREFERRED_AGENT = "demo";

export default async function CopilotKitPage({ searchParams }: { searchParams: Promise<{ agent?: string | string[] }> }) {
  const caller = await requireCaller();
  if (!caller.scopes.includes("agui")) return <ScopeNotice title="CopilotKit" scope="agui" what="Chatting with the agents" />;
  const agents = (await getServices()).agents.list();
  const asked = (await searchParams).agent;
  const names = agents.map((a) => a.name);
  const agent = [asked, PREFERRED_AGENT, names[0]].find((name): name is string => typeof name === "string" && names.includes(name));
  return (
    <div className="max-w-5xl space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">CopilotKit</h1>
        <p className="mt-1 text-sm text-slate-600">
          CopilotKit&apos;s own chat (@copilotkit/react-core 1.74, v2 API) talking to this console&apos;s AG-UI endpoint, with no CopilotKit
          runtime in between. Tool calls show as cards; a call that needs approval pauses the run and CopilotKit&apos;s interrupt support
          asks you. Try &ldquo;weather in Paris&rdquo; or &ldquo;refund order 1234 for 20 EUR&rdquo;. CopilotKit is loaded on this page
          only.{" "}
          <Link href="/embed" className="underline">
            Back to Embed
          </Link>
        </p>
      </div>
      {agent ? (
        <>
          <form className="flex items-center gap-2 text-sm" method="get">
            <label htmlFor="copilotkit-agent">Agent</label>
            <select id="copilotkit-agent" name="agent" defaultValue={agent} className="rounded border border-slate-300 px-2 py-1">
              {names.map((name) => (
                <option key={name}>{name}</option>
              ))}
            </select>
            <button type="submit" className="rounded border border-slate-300 px-2 py-1">
              Open
            </button>
          </form>
          <CopilotKitPanel key={agent} agent={agent} endpoint={`/api/agui/${encodeURIComponent(agent)}`} />
        </>
      ) : (
        <p className="text-sm text-slate-600">The console has no agents.</p>
      )}
    </div>
  );
}
