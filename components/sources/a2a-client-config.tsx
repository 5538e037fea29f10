"use client";

import Link from "next/link";
import { useState } from "react";
import { useConsoleOrigin } from "../common/use-console-origin";
import { a2aSnippets, type A2aSnippet } from "./a2a-snippets";
import { ClientConfigPanel } from "./client-config-panel";

const TABS = [
  { key: "curl" as const, label: "curl" },
  { key: "typescript" as const, label: "TypeScript (@a2a-js/sdk)" },
];

/**
 * How to reach this console's registry from another agent over A2A: the agent card and the JSON-RPC
 * endpoint (under PUBLIC_URL when it is set, else the address this page was opened at), a call to
 * copy, and how to get a token.
 */
export function A2aClientConfig({ publicUrl, local }: { publicUrl?: string; local: boolean }) {
  const [snippet, setSnippet] = useState<A2aSnippet>("curl");
  const origin = useConsoleOrigin(publicUrl);
  return (
    <ClientConfigPanel
      id="a2a-client"
      title="Use these tools from an A2A agent"
      tabsLabel="A2A client"
      tabs={TABS}
      selected={snippet}
      onSelect={setSnippet}
      text={a2aSnippets(origin)[snippet]}
      what="A2A call"
    >
      The console is an A2A agent: its card is at <code className="font-mono">{origin}/.well-known/agent-card.json</code> (one skill per
      tool exported to A2A) and it answers JSON-RPC at <code className="font-mono">{origin}/api/a2a</code>. A data part{" "}
      <code>{"{ tool, arguments }"}</code> calls a tool, a text message chats with the default agent; a call that needs approval leaves its
      task input-required until it is decided in the approvals inbox.{" "}
      <Link href="/settings?token_scope=a2a#tokens" className="text-indigo-700 underline">
        Make a token
      </Link>{" "}
      with the <code>a2a</code> scope (or on the console&apos;s machine:{" "}
      <code className="font-mono">npm run token -- create my-agent --scopes a2a</code>).
      {local ? " A client on this machine may send no token." : ""}
    </ClientConfigPanel>
  );
}
