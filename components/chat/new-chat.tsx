"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/** Pick an agent and start a new thread. */
export function NewChat({
  agents,
  defaultAgent,
}: {
  agents: Array<{ name: string; description: string; model: string }>;
  defaultAgent: string;
}) {
  const router = useRouter();
  const [agent, setAgent] = useState(defaultAgent);
  return (
    <form
      className="space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        router.push(`/chat/${crypto.randomUUID()}?agent=${encodeURIComponent(agent)}`);
      }}
    >
      <label htmlFor="new-chat-agent" className="block text-xs font-medium text-slate-600">
        New chat with
      </label>
      <select
        id="new-chat-agent"
        className="w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
        value={agent}
        onChange={(e) => setAgent(e.target.value)}
      >
        {agents.map((a) => (
          <option key={a.name} value={a.name}>
            {a.name}
          </option>
        ))}
      </select>
      <p className="text-xs text-slate-500">{agents.find((a) => a.name === agent)?.description}</p>
      <p className="truncate font-mono text-xs text-slate-500" title={agents.find((a) => a.name === agent)?.model}>
        {agents.find((a) => a.name === agent)?.model}
      </p>
      <button type="submit" className="w-full rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700">
        New chat
      </button>
    </form>
  );
}
