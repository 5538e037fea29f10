"use client";

import { useId, useState } from "react";
import { CopyButton } from "../common/copy-button";
import { TabList } from "../common/tab-list";
import { useConsoleOrigin } from "../common/use-console-origin";

type Client = "vscode" | "desktop";
const TABS = [
  { key: "vscode" as const, label: "VS Code (.vscode/mcp.json)" },
  { key: "desktop" as const, label: "Claude Desktop and others (mcpServers)" },
];

/** The configuration an MCP client needs to use this console's tools, for `url` with a bearer token. */
function configFor(client: Client, url: string): string {
  const headers = { Authorization: "Bearer YOUR_TOKEN" };
  const server = { type: "http", url, headers };
  return JSON.stringify(
    client === "vscode" ? { servers: { "agui-console": server } } : { mcpServers: { "agui-console": server } },
    null,
    2,
  );
}

/**
 * How to reach this console's registry from an MCP client: the endpoint (under PUBLIC_URL when it is
 * set, else the address this page was opened at), a configuration to copy, and how to get a token.
 */
export function McpClientConfig({ publicUrl, local }: { publicUrl?: string; local: boolean }) {
  const panelId = useId();
  const [client, setClient] = useState<Client>("vscode");
  const url = `${useConsoleOrigin(publicUrl)}/api/mcp`;
  const text = configFor(client, url);
  return (
    <section aria-labelledby={`${panelId}-title`} className="rounded-lg border border-slate-200 bg-white p-5">
      <h2 id={`${panelId}-title`} className="text-lg font-semibold">
        Use these tools from an MCP client
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        The console serves its registry at <code className="font-mono">{url}</code> (Streamable HTTP). Calls that need approval wait in the
        approvals inbox. Make a token with the <code>mcp</code> scope on the console&apos;s machine:{" "}
        <code className="font-mono">npm run token -- create my-client --scopes mcp</code>, and put it in place of YOUR_TOKEN.
        {local ? " A client on this machine may leave the Authorization header out." : ""}
      </p>
      <div className="mt-3">
        <TabList label="MCP client" tabs={TABS} selected={client} onSelect={setClient} panelId={panelId} />
        <div id={panelId} role="tabpanel" tabIndex={0} className="space-y-2 rounded-b-md border border-t-0 border-slate-200 p-3">
          <CopyButton text={text} what="MCP client configuration" />
          <pre aria-label="MCP client configuration" className="overflow-auto rounded-md bg-slate-50 p-3 font-mono text-xs">
            {text}
          </pre>
        </div>
      </div>
    </section>
  );
}
