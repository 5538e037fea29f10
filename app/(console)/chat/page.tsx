import { getServices } from "@/lib/services";
import { NewChat } from "@/components/chat/new-chat";

export const dynamic = "force-dynamic";
export const metadata = { title: "Chat" };

export default function ChatIndexPage() {
  const services = getServices();
  const agents = services.agents.list();
  return (
    <div className="max-w-2xl">
      <h1 className="text-2xl font-semibold tracking-tight">Chat</h1>
      <p className="mt-1 text-sm text-slate-600">
        Pick an agent and start a thread. Every tool call streams as a timeline entry; calls that need a person pause the run until you
        decide.
      </p>
      <ul className="mt-6 space-y-3">
        {agents.map((agent) => (
          <li key={agent.name} className="rounded-lg border border-slate-200 bg-white p-4">
            <h2 className="font-mono font-semibold">{agent.name}</h2>
            <p className="text-sm text-slate-600">{agent.description}</p>
            <p className="mt-1 text-xs text-slate-500">Model: {agent.model}</p>
          </li>
        ))}
      </ul>
      <div className="mt-6 max-w-xs">
        <NewChat agents={agents} defaultAgent={services.agents.default.info.name} />
      </div>
    </div>
  );
}
