import { ContentBlockSchema, type ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject } from "../json/canonical";

/**
 * A tool's value made of MCP content blocks: `{ content: [...] }`, its one key. An imported MCP
 * tool answers with one when its result holds more than text (an image, audio, a resource) and no
 * structured content, an imported A2A agent when its answer holds files; any tool may answer one.
 * The console's MCP endpoint serves it as the blocks themselves and its A2A endpoint as one part
 * per block, so an image from a server behind the console reaches the client as an image; pages
 * show the blocks (lib/client/content-blocks.ts) and models read media by name (lib/agents/media-text.ts).
 */
export interface ContentValue {
  content: ContentBlock[];
}

/**
 * The most blocks a value may hold to be served as blocks. Each is checked against the SDK's schema
 * (a few µs apiece): an imported tool's answer of 4 MB of tiny blocks would otherwise hold the event
 * loop for a tenth of a second. A longer list is served as the JSON it is.
 */
export const MAX_CONTENT_BLOCKS = 1000;

/** A result's content blocks as a tool's value (see ContentValue). */
export function contentValue(blocks: ContentBlock[]): ContentValue {
  return { content: blocks };
}

/**
 * The blocks of a value shaped as a ContentValue: an object whose only key is `content`, a
 * non-empty array of at most MAX_CONTENT_BLOCKS blocks that each read as an MCP content block.
 * Anything else is undefined (the value is served as structured content).
 */
export function contentBlocksOf(value: unknown): ContentBlock[] | undefined {
  if (!isJsonObject(value)) return undefined;
  const blocks = value.content;
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > MAX_CONTENT_BLOCKS || Object.keys(value).length !== 1)
    return undefined;
  // The blocks are served as they are (the schema's output would drop what it does not name).
  return blocks.every((block) => ContentBlockSchema.safeParse(block).success) ? (blocks as ContentBlock[]) : undefined;
}
