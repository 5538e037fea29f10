// What a model reads of a tool's answer that holds media: an imported MCP tool's image or sound
// (content blocks with base64 `data`) or a binary resource (`blob`). The bytes are named, not
// spelled out: as text they would cost a model tens of thousands of tokens for one screenshot and
// tell it nothing. The person sees the media on the timeline (components/common/content-blocks-view.tsx).

import { base64Bytes } from "../client/content-blocks";

/** Where a tool's JSON answer may hold media: an image or audio block, or a resource's blob. */
const MEDIA_MARK = /"type"\s*:\s*"(?:image|audio)"|"blob"\s*:\s*"/;
/** Nesting walked looking for media (tool answers are checked to nest less than this). */
const MAX_WALK_DEPTH = 64;

/** A tool's answer (JSON text) with its media named instead of included; other text as it is. */
export function mediaNamedText(text: string): string {
  if (!MEDIA_MARK.test(text)) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(mediaNamed(value));
}

/**
 * `value` with the base64 `data` of every image and audio block, and the `blob` of every resource,
 * replaced by a note of what it was and how large. Everything else is kept as it was.
 */
export function mediaNamed(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object" || depth > MAX_WALK_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => mediaNamed(item, depth + 1));
  const object = value as Record<string, unknown>;
  const named: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(object)) named[key] = mediaNamed(item, depth + 1);
  if ((object.type === "image" || object.type === "audio") && typeof object.data === "string") {
    const kind = typeof object.mimeType === "string" ? object.mimeType : object.type;
    named.data = `[${kind}, ${bytes(object.data)}: shown to the person, not included here]`;
  }
  if (typeof object.blob === "string" && typeof object.uri === "string")
    named.blob = `[${typeof object.mimeType === "string" ? object.mimeType : "binary content"}, ${bytes(object.blob)}: not included here]`;
  return named;
}

function bytes(base64: string): string {
  return `${base64Bytes(base64).toLocaleString("en")} bytes`;
}
