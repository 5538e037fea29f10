import { notFound } from "next/navigation";
import { ChatView } from "@/components/chat/chat-view";
import { loadThreadView } from "@/lib/api/threads";
import { getServices } from "@/lib/services";
import { requireCaller } from "../../../page-caller";

export const dynamic = "force-dynamic";
export const metadata = { title: "Chat" };

export default async function ThreadPage({
  params,
  searchParams,
}: {
  params: Promise<{ threadId: string }>;
  searchParams: Promise<{ agent?: string }>;
}) {
  const { threadId } = await params;
  const { agent: requested } = await searchParams;
  const services = await getServices();
  const caller = await requireCaller();
  // Another caller's thread reads as a new one: its id says nothing of whose it is.
  const view = await loadThreadView(services, threadId, caller);
  const agent = services.agents.get(view?.thread.agent ?? requested ?? services.agents.default.info.name);
  // A thread whose agent was removed since (an added LLM agent, a remote one) stays readable.
  if (!agent && !view) notFound();
  const shown = agent
    ? {
        name: agent.info.name,
        description: agent.info.description,
        model: agent.info.model,
        sharedState: agent.info.capabilities.sharedState,
      }
    : { name: view!.thread.agent, description: "", model: "no longer served by this console", gone: true };
  const initial = view ? { threadId, messages: view.messages, state: view.state, interrupts: view.interrupts } : null;
  const toolSchemas = Object.fromEntries(services.registry.forTarget("agui").map((t) => [t.name, t.inputSchema]));
  return <ChatView key={threadId} agent={shown} threadId={threadId} initial={initial} toolSchemas={toolSchemas} />;
}
