import Link from "next/link";
import { headers } from "next/headers";
import { ScopeNotice } from "@/components/common/scope-notice";
import { EmbedView } from "@/components/embed/embed-view";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../page-caller";

export const dynamic = "force-dynamic";
export const metadata = { title: "Embed" };

export default async function EmbedPage() {
  const caller = await requireCaller();
  if (!caller.scopes.includes("agui")) return <ScopeNotice title="Embed" scope="agui" what="Seeing the agents' endpoints" />;
  const services = await getServices();
  // Where other apps reach the console: PUBLIC_URL, else the Host this page was asked for (a served one).
  const base = (services.config.PUBLIC_URL ?? `http://${(await headers()).get("host")}`).replace(/\/+$/, "");
  const agents = services.agents.list().map((a) => ({
    name: a.name,
    description: a.description,
    url: `${base}/api/agui/${encodeURIComponent(a.name)}`,
  }));
  return (
    <div className="max-w-5xl space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Embed</h1>
        <p className="mt-1 text-sm text-slate-600">
          Put a console agent into your own app. Each agent has an AG-UI endpoint; a client posts a <code>RunAgentInput</code> to it with a
          bearer token and reads the run as server-sent events. Create a token, then copy a snippet: it is filled in with the endpoint and
          the token. To see CopilotKit&apos;s own chat talk to an agent here, open the{" "}
          <Link href="/embed/copilotkit" className="underline">
            live CopilotKit page
          </Link>
          .
        </p>
      </div>
      <EmbedView agents={agents} canCreateTokens={caller.scopes.includes("admin")} usingPublicUrl={Boolean(services.config.PUBLIC_URL)} />
    </div>
  );
}
