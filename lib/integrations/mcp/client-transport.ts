import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { OutboundGuard } from "../../net";
import type { McpSecrets, McpTarget } from "./client-target";

/** The last lines a stdio server wrote on stderr, kept for its status message (bounded). */
export class StderrTail {
  private text = "";
  constructor(private readonly maxChars = 2_000) {}

  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-this.maxChars);
  }

  /** The last non-empty line, for an error message. */
  lastLine(): string | undefined {
    return this.text.trim().split(/\r?\n/).at(-1)?.slice(0, 500) || undefined;
  }
}

export interface OpenedTransport {
  transport: Transport;
  /** The child's process id (stdio, once started). */
  pid(): number | null;
  stderr?: StderrTail;
}

/**
 * A client transport for the target. HTTP goes through the outbound guard (every request, checked
 * at connect time), with the target's headers and the secret ones; cross-origin redirects are not
 * followed. A stdio server runs without a shell, with only the SDK's default environment (HOME,
 * LOGNAME, PATH, SHELL, TERM, USER) plus the variables the import gave: never the console's own
 * environment, which holds its tokens.
 */
export function openTransport(target: McpTarget, secrets: McpSecrets | undefined, outbound: OutboundGuard): OpenedTransport {
  if (target.transport === "http") {
    const headers = { ...target.headers, ...secrets?.headers };
    const transport = new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers },
      fetch: (url, init) => outbound.fetch(url, init),
      redirectPolicy: "same-origin",
      // The SDK tries twice to resume the server's event stream (a server may end it on purpose);
      // after that the connection makes a new session itself (McpConnection), with no endless SDK loop.
      reconnectionOptions: { maxReconnectionDelay: 1_000, initialReconnectionDelay: 500, reconnectionDelayGrowFactor: 2, maxRetries: 2 },
    });
    return { transport, pid: () => null };
  }
  const stderr = new StderrTail();
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args ?? [],
    env: { ...getDefaultEnvironment(), ...target.env, ...secrets?.env },
    ...(target.cwd && { cwd: target.cwd }),
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
  return { transport, pid: () => transport.pid, stderr };
}
