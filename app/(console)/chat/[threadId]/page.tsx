import { notFound } from "next/navigation";
import { ChatView } from "@/components/chat/chat-view";
import { interruptFor } from "@/lib/agents";
import { getServices } from "@/lib/services";

export const dynamic = "force-dynamic";
export const metadata = { title: "Chat" };

export default async function ThreadPage({ params, searchParams }: { params: Promise<{ threadId: string }>; searchParams: Promise<{ agent?: string }> }) {
  const { threadId } = await params;
  const { agent: requested } = await searchParams;
  const services = getServices();
  const thread = services.runs.getThread(threadId);
  const agent = services.agents.get(thread?.agent ?? requested ?? services.agents.default.info.name);
  if (!agent) notFound();
  const initial = thread
    ? {
        threadId,
        messages: thread.messages as never[],
        state: thread.state ?? {},
        interrupts: services.approvals.unansweredForThread(threadId).map((a) => interruptFor(a, services.registry.get(a.tool))),
      }
    : null;
  const toolSchemas = Object.fromEntries(services.registry.forTarget("agui").map((t) => [t.name, t.inputSchema]));
  return <ChatView key={threadId} agent={{ name: agent.info.name, description: agent.info.description, model: agent.info.model }} threadId={threadId} initial={initial} toolSchemas={toolSchemas} />;
}
