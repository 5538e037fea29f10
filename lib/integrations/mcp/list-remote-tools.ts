import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { parseUntrusted } from "../../json/untrusted";
import { McpOptionsError } from "./import-errors";

/** A server listing more than this many tools, or pages, is refused rather than read forever. */
export const MAX_REMOTE_TOOLS = 2_000;
const MAX_PAGES = 200;

// Each page is read with a loose schema: the SDK's own listTools() fails on the whole page when a
// single tool is malformed, and a bad tool on someone else's server must not block the others.
const LoosePage = z.looseObject({
  tools: z.array(z.unknown()).max(MAX_REMOTE_TOOLS),
  nextCursor: z.string().max(4096).optional(),
});

export interface RemoteToolList {
  tools: Tool[];
  /** One line per tool left out, naming it and saying why. */
  warnings: string[];
}

/**
 * Every tool of a connected server, following `nextCursor` to the last page; a tool that does not
 * parse as an MCP tool is left out with a warning. Throws McpOptionsError when the listing repeats a
 * cursor or goes past MAX_REMOTE_TOOLS, and what the client throws (a lost connection, a JSON-RPC error).
 */
export async function listRemoteTools(client: Client, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<RemoteToolList> {
  const tools: Tool[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_PAGES) throw new McpOptionsError(`The server's tool list did not end after ${MAX_PAGES} pages`);
    const answer = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, LoosePage, {
      timeout: options.timeoutMs ?? 30_000,
      signal: options.signal,
    });
    answer.tools.forEach((raw, index) => {
      const parsed = parseUntrusted(ToolSchema, raw);
      if (parsed.success) {
        tools.push(parsed.data);
        return;
      }
      const name = nameOf(raw) ?? `#${tools.length + warnings.length + 1} (page ${page + 1}, item ${index + 1})`;
      const issue = parsed.issues[0];
      warnings.push(`Tool ${name} skipped: ${issue ? `${issue.path.join(".") || "definition"} ${issue.message}` : "not an MCP tool"}`);
    });
    if (tools.length + warnings.length > MAX_REMOTE_TOOLS)
      throw new McpOptionsError(`The server lists more than ${MAX_REMOTE_TOOLS} tools; the console imports at most that many`);
    cursor = answer.nextCursor;
    if (cursor === undefined || cursor === "") return { tools, warnings };
    if (seen.has(cursor)) throw new McpOptionsError("The server's tool list never ends (a cursor came back twice)");
    seen.add(cursor);
  }
}

function nameOf(raw: unknown): string | undefined {
  const name = raw && typeof raw === "object" ? (raw as { name?: unknown }).name : undefined;
  return typeof name === "string" && name ? JSON.stringify(name.slice(0, 100)) : undefined;
}
