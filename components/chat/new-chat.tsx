"use client";

import { useParams, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";

/**
 * Pick an agent and start a new thread. The pick starts as the agent of the thread on screen (from
 * the recent threads, else the page's `?agent=`), so "New chat" from a thread with the assistant
 * starts another with the assistant; the console's default agent elsewhere.
 */
export function NewChat({
  agents,
  defaultAgent,
  threadAgents,
}: {
  agents: Array<{ name: string; description: string; model: string }>;
  defaultAgent: string;
  /** The agent of each recent thread, by thread id. */
  threadAgents: Record<string, string>;
}) {
  const router = useRouter();
  const { threadId } = useParams<{ threadId?: string }>();
  const requested = useSearchParams().get("agent");
  const onScreen = (threadId !== undefined && threadAgents[threadId]) || requested || defaultAgent;
  const current = agents.some((a) => a.name === onScreen) ? onScreen : defaultAgent;
  // A pick made on one thread's page does not follow the operator to another thread.
  const [picked, setPicked] = useState<{ on: string; agent: string }>();
  const agent = picked?.on === current ? picked.agent : current;
  const chosen = agents.find((a) => a.name === agent);
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
        onChange={(e) => setPicked({ on: current, agent: e.target.value })}
      >
        {agents.map((a) => (
          <option key={a.name} value={a.name}>
            {a.name}
          </option>
        ))}
      </select>
      <p className="text-xs text-slate-500">{chosen?.description}</p>
      <p className="truncate font-mono text-xs text-slate-500" title={chosen?.model}>
        {chosen?.model}
      </p>
      <button type="submit" className="w-full rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700">
        New chat
      </button>
    </form>
  );
}
