import Link from "next/link";
import type { ReactNode } from "react";
import { NewChat } from "@/components/chat/new-chat";
import { LocalTime } from "@/components/common/local-time";
import { ScopeNotice } from "@/components/common/scope-notice";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../page-caller";

export const dynamic = "force-dynamic";

export default async function ChatLayout({ children }: { children: ReactNode }) {
  const services = await getServices();
  const caller = await requireCaller();
  if (!caller.scopes.includes("agui")) return <ScopeNotice title="Chat" scope="agui" what="Chatting with agents" />;
  // An operator sees every caller's threads; anyone else their own (as GET /api/threads).
  const threads = await services.runs.listThreads({ principal: caller.operator ? undefined : caller.id, limit: 40 });
  const agents = services.agents.list();
  return (
    <div className="-m-8 flex min-h-screen">
      <aside className="w-60 shrink-0 space-y-4 border-r border-slate-200 bg-white p-4" aria-label="Threads">
        <NewChat
          agents={agents}
          defaultAgent={services.agents.default.info.name}
          threadAgents={Object.fromEntries(threads.map((t) => [t.id, t.agent]))}
        />
        <nav aria-label="Recent threads">
          <h2 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Recent threads</h2>
          {threads.length === 0 ? <p className="text-xs text-slate-500">No threads yet.</p> : null}
          <ul className="space-y-0.5">
            {threads.map((t) => (
              <li key={t.id}>
                <Link
                  href={`/chat/${encodeURIComponent(t.id)}`}
                  className="block truncate rounded px-2 py-1 text-sm hover:bg-slate-100"
                  title={t.title ?? t.id}
                >
                  {t.title ?? "Untitled"}
                  <span className="block text-xs text-slate-500">
                    {t.agent} · <LocalTime at={t.updatedAt} style="short" />
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </aside>
      <div className="min-w-0 flex-1 p-8">{children}</div>
    </div>
  );
}
