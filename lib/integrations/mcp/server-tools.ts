import { decodeCursor, encodeCursor } from "../../db/cursor";
import type { ToolRegistry } from "../../tools/registry";
import type { RegisteredTool } from "../../tools/spec";
import { toMcpTool, type McpTool } from "./mcp-tools";

/** Tools per tools/list page. */
export const MCP_PAGE_SIZE = 100;

interface Listing {
  /** Definitions converted so far, by position: a page converts only its own tools. */
  definitions: Array<McpTool | undefined>;
  sorted: readonly RegisteredTool[];
  names: string[];
  tools: Map<string, RegisteredTool>;
}

/**
 * The registry's MCP tools as the server lists and calls them: enabled tools exported to "mcp", in
 * name order, as MCP definitions. The sorted list is rebuilt after the registry changes and
 * definitions are converted as pages ask for them, so a tools/list of a 10,000-tool registry costs
 * a binary search and one page of conversions, not 10,000.
 */
export class McpToolCatalog {
  private listing: Listing | undefined;

  constructor(private readonly registry: ToolRegistry) {
    registry.onChange(() => {
      this.listing = undefined;
    });
  }

  /**
   * One page of definitions, after the tool named in `cursor` (an opaque cursor from the previous
   * page). Keyset paging: tools added or removed between pages shift nothing. Throws InvalidCursor.
   */
  page(cursor: string | undefined, size = MCP_PAGE_SIZE): { tools: McpTool[]; nextCursor?: string } {
    const { definitions, sorted, names } = this.current();
    const start = cursor === undefined ? 0 : firstAfter(names, decodeCursor(cursor, ["string"])[0]);
    const end = Math.min(start + size, sorted.length);
    const tools: McpTool[] = [];
    for (let i = start; i < end; i++) tools.push((definitions[i] ??= definitionOf(sorted[i]!)));
    const more = end < sorted.length;
    return more ? { tools, nextCursor: encodeCursor([names[start + size - 1]!]) } : { tools };
  }

  /** The tool an MCP client may call by this name, or undefined (unknown, disabled, or not served over MCP). */
  get(name: string): RegisteredTool | undefined {
    return this.current().tools.get(name);
  }

  private current(): Listing {
    if (!this.listing) {
      const tools = this.registry.forTarget("mcp");
      this.listing = {
        definitions: new Array<McpTool | undefined>(tools.length),
        sorted: tools,
        names: tools.map((tool) => tool.name),
        tools: new Map(tools.map((tool) => [tool.name, tool])),
      };
    }
    return this.listing;
  }
}

/** A tool's MCP definition. Any call may wait for a person, so any call may become a task. */
function definitionOf(tool: RegisteredTool): McpTool {
  return { ...toMcpTool(tool).output, execution: { taskSupport: "optional" } };
}

/** The index of the first name after `name` in sorted `names`. */
function firstAfter(names: string[], name: string): number {
  let low = 0;
  let high = names.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (names[middle]! <= name) low = middle + 1;
    else high = middle;
  }
  return low;
}
