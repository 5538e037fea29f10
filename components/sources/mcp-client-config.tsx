"use client";

import Link from "next/link";
import { useState } from "react";
import { useConsoleOrigin } from "../common/use-console-origin";
import { ClientConfigPanel } from "./client-config-panel";

type Client = "vscode" | "http" | "desktop";
const TABS = [
  { key: "vscode" as const, label: "VS Code (.vscode/mcp.json)" },
  { key: "http" as const, label: "Claude Code, Cursor and others (mcpServers)" },
  { key: "desktop" as const, label: "Claude Desktop (through mcp-remote)" },
];

/**
 * The configuration an MCP client needs to use this console's tools, for `url` with a bearer token.
 * Claude Desktop's file starts local commands only: it reaches an HTTP server through the
 * mcp-remote bridge, which takes the header as an argument.
 */
function configFor(client: Client, url: string): string {
  const server =
    client === "desktop"
      ? { command: "npx", args: ["-y", "mcp-remote", url, "--header", "Authorization:Bearer YOUR_TOKEN"] }
      : { type: "http", url, headers: { Authorization: "Bearer YOUR_TOKEN" } };
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
  const [client, setClient] = useState<Client>("vscode");
  const url = `${useConsoleOrigin(publicUrl)}/api/mcp`;
  return (
    <ClientConfigPanel
      id="mcp-client"
      title="Use these tools from an MCP client"
      tabsLabel="MCP client"
      tabs={TABS}
      selected={client}
      onSelect={setClient}
      text={configFor(client, url)}
      what="MCP client configuration"
    >
      The console serves its registry at <code className="font-mono">{url}</code> (Streamable HTTP). Calls that need approval wait in the
      approvals inbox.{" "}
      <Link href="/settings?token_scope=mcp#tokens" className="text-indigo-700 underline">
        Make a token
      </Link>{" "}
      with the <code>mcp</code> scope (or on the console&apos;s machine:{" "}
      <code className="font-mono">npm run token -- create my-client --scopes mcp</code>) and put it in place of YOUR_TOKEN.
      {local ? " A client on this machine may leave the Authorization header (for mcp-remote, its --header pair) out." : ""}
    </ClientConfigPanel>
  );
}
