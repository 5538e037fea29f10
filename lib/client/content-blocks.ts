// A tool's result made of MCP content blocks, read for display: `{ content: [...] }`, its one key,
// what an imported MCP tool answers when its result holds an image, audio or a resource (and what
// the console's MCP endpoint serves as blocks, lib/integrations/content-value.ts). The check
// here is the browser's own (no SDK schemas in the page's bundle): each block must have the fields
// its type needs to be shown; anything else leaves the result to the JSON view.

export type ShownBlock =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; mimeType: string; data: string; src?: string }
  | { type: "resource"; uri: string; mimeType?: string; text?: string; blobBytes?: number }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string };

/** Media the page shows inline, as data: URLs (its CSP allows them for images and media). */
const SHOWN_MEDIA = /^(image\/(png|jpeg|gif|webp)|audio\/(wav|x-wav|mpeg|mp3|ogg|webm|mp4|aac|flac))$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
const text = (value: unknown): value is string => typeof value === "string";

/**
 * The most blocks a value may hold to be served (lib/integrations/content-value.ts) or shown as
 * blocks; a longer list is the JSON it is. The server checks each block against the SDK's schema (a
 * few µs apiece): an imported tool's answer of 4 MB of tiny blocks would otherwise hold the event
 * loop for a tenth of a second.
 */
export const MAX_CONTENT_BLOCKS = 1000;

/** The blocks of a value shaped as MCP content: `content`, its one key, a list of 1 to MAX_CONTENT_BLOCKS items (not yet checked). */
export function contentList(value: unknown): unknown[] | undefined {
  if (!isObject(value) || Object.keys(value).length !== 1 || !Array.isArray(value.content)) return undefined;
  return value.content.length && value.content.length <= MAX_CONTENT_BLOCKS ? value.content : undefined;
}

/** The blocks of a result shaped as MCP content, ready to show; undefined when it is not one. */
export function contentBlocksOf(result: unknown): ShownBlock[] | undefined {
  const blocks = contentList(result);
  if (!blocks) return undefined;
  const shown: ShownBlock[] = [];
  for (const block of blocks) {
    const one = isObject(block) ? shownBlock(block) : undefined;
    if (!one) return undefined;
    shown.push(one);
  }
  return shown;
}

/** How many bytes a base64 text holds. */
export function base64Bytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

function shownBlock(block: Record<string, unknown>): ShownBlock | undefined {
  switch (block.type) {
    case "text":
      return text(block.text) ? { type: "text", text: block.text } : undefined;
    case "image":
    case "audio": {
      if (!text(block.data) || !text(block.mimeType)) return undefined;
      const mimeType = block.mimeType.toLowerCase();
      const inline = SHOWN_MEDIA.test(mimeType) && mimeType.startsWith(block.type) && BASE64.test(block.data);
      return { type: block.type, mimeType, data: block.data, ...(inline && { src: `data:${mimeType};base64,${block.data}` }) };
    }
    case "resource": {
      const resource = block.resource;
      if (!isObject(resource) || !text(resource.uri)) return undefined;
      return {
        type: "resource",
        uri: resource.uri,
        ...(text(resource.mimeType) && { mimeType: resource.mimeType }),
        ...(text(resource.text) && { text: resource.text }),
        ...(text(resource.blob) && { blobBytes: base64Bytes(resource.blob) }),
      };
    }
    case "resource_link":
      return text(block.uri) && text(block.name)
        ? { type: "resource_link", uri: block.uri, name: block.name, ...(text(block.mimeType) && { mimeType: block.mimeType }) }
        : undefined;
    default:
      return undefined;
  }
}
