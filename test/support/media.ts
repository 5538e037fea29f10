import type { ToolRegistry } from "@/lib/tools";

// Media for the tests of MCP content blocks (an imported tool's image): one tiny PNG, and a registry
// tool that answers it the way an imported MCP tool does.

/** A 1×1 red PNG, as base64 (70 bytes). */
export const RED_DOT_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** How a model is told of RED_DOT_PNG in place of its bytes (lib/agents/media-text.ts). */
export const RED_DOT_NAMED = "image/png, 70 bytes: shown to the person, not included here";

/** Register `screenshot` (no arguments), answering RED_DOT_PNG as an image block after `text` blocks; once per registry. */
export async function addScreenshotTool(registry: ToolRegistry, text: string[] = []): Promise<void> {
  if (registry.get("screenshot")) return;
  await registry.add({ name: "screenshot", description: "Takes a screenshot", inputSchema: { type: "object", properties: {} } }, () => ({
    content: [...text.map((t) => ({ type: "text", text: t })), { type: "image", data: RED_DOT_PNG, mimeType: "image/png" }],
  }));
}
