"use client";

// Imported only through copilotkit-panel.tsx's dynamic import: everything CopilotKit brings, its
// styles too, stays out of the other pages. The stylesheet is imported by name: the build drops
// the `import "./index.css"` inside CopilotKit's own module (measured: no CSS was emitted for it).
import { CopilotChat, CopilotKitProvider, HttpAgent, useInterrupt, useRenderTool } from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import { useState } from "react";

export interface CopilotKitChatProps {
  /** The console agent's name: CopilotKit's agent id as well, given to every hook. */
  agent: string;
  /** The agent's AG-UI endpoint on this console (same origin: the session cookie or the local operator authenticates). */
  endpoint: string;
}

/**
 * CopilotKit's chat wired to a console agent with no CopilotKit runtime: the HttpAgent is
 * CopilotKit's own (its @ag-ui/client 0.0.59 copy, so its `instanceof` checks hold), and the
 * endpoint speaks the pre-1.0 dialect to it because the requests carry no protocolVersion.
 */
export default function CopilotKitChat({ agent, endpoint }: CopilotKitChatProps) {
  // One agent object for the page's life: it holds the thread id and the messages.
  const [httpAgent] = useState(() => new HttpAgent({ url: endpoint, agentId: agent }));
  return (
    <CopilotKitProvider agentId={agent} agents__unsafe_dev_only={{ [agent]: httpAgent }}>
      <ToolCallCards agent={agent} />
      <ApprovalPrompt agent={agent} />
      <div className="h-[640px] overflow-hidden rounded-lg border border-slate-200 bg-white" data-testid="copilotkit-chat">
        <CopilotChat agentId={agent} labels={{ chatInputPlaceholder: `Message ${agent}…` }} />
      </div>
    </CopilotKitProvider>
  );
}

/** Parse a tool result's JSON for display; the raw text when it is not JSON. */
function readable(result: string): string {
  try {
    return JSON.stringify(JSON.parse(result), null, 2);
  } catch {
    return result;
  }
}

/** Every tool call as a card (a wildcard renderer): its name, arguments, and result once there is one. */
function ToolCallCards({ agent }: { agent: string }) {
  useRenderTool(
    {
      name: "*",
      agentId: agent,
      render: ({ name, parameters, status, result }: { name: string; parameters: unknown; status: string; result?: string }) => (
        <div role="group" aria-label={`Tool call ${name}`} className="my-2 rounded-md border border-slate-200 bg-slate-50 p-3 text-xs">
          <div className="flex items-center gap-2">
            <span className="font-mono font-semibold">{name}</span>
            <span className="rounded bg-slate-200 px-1.5 py-0.5 text-[11px] text-slate-700">
              {status === "complete" ? "done" : "waiting for the result"}
            </span>
          </div>
          <pre className="mt-2 overflow-x-auto whitespace-pre-wrap text-slate-700">{JSON.stringify(parameters ?? {}, null, 2)}</pre>
          {status === "complete" && result !== undefined ? (
            <pre aria-label="Result" className="mt-2 overflow-x-auto whitespace-pre-wrap border-t border-slate-200 pt-2 text-slate-900">
              {readable(result)}
            </pre>
          ) : null}
        </div>
      ),
    },
    [agent],
  );
  return null;
}

/** A call waiting for approval, through CopilotKit's useInterrupt: shown in the chat with Approve and Deny. */
function ApprovalPrompt({ agent }: { agent: string }) {
  useInterrupt({
    agentId: agent,
    render: ({ interrupt, resolve }) => {
      if (!interrupt) return <></>;
      const metadata = (interrupt.metadata ?? {}) as { toolName?: string; arguments?: unknown };
      return (
        <div role="group" aria-label="Approval" className="my-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm">
          <p className="font-medium">{interrupt.message ?? "A tool call waits for your approval"}</p>
          {metadata.toolName ? <p className="mt-1 font-mono text-xs">{metadata.toolName}</p> : null}
          <pre className="mt-1 overflow-x-auto whitespace-pre-wrap text-xs">{JSON.stringify(metadata.arguments ?? {}, null, 2)}</pre>
          <div className="mt-2 flex gap-2">
            <button
              type="button"
              className="rounded bg-slate-900 px-3 py-1 text-white"
              onClick={() => void resolve({ approved: true }, interrupt.id)}
            >
              Approve
            </button>
            <button
              type="button"
              className="rounded border border-slate-300 bg-white px-3 py-1"
              onClick={() => void resolve({ approved: false, reason: "Denied on the CopilotKit page" }, interrupt.id)}
            >
              Deny
            </button>
          </div>
        </div>
      );
    },
  });
  return null;
}
