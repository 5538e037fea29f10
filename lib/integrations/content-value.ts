import { ContentBlockSchema, type ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { contentList } from "../client/content-blocks";

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

/** A result's content blocks as a tool's value (see ContentValue). */
export function contentValue(blocks: ContentBlock[]): ContentValue {
  return { content: blocks };
}

/**
 * The blocks of a value shaped as a ContentValue (see contentList: `content` its one key, 1 to
 * MAX_CONTENT_BLOCKS items) that each read as an MCP content block. Anything else is undefined (the
 * value is served as structured content).
 */
export function contentBlocksOf(value: unknown): ContentBlock[] | undefined {
  const blocks = contentList(value);
  // The blocks are served as they are (the schema's output would drop what it does not name).
  return blocks?.every((block) => ContentBlockSchema.safeParse(block).success) ? (blocks as ContentBlock[]) : undefined;
}
