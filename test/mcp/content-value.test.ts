import { describe, expect, it } from "vitest";
import { MAX_CONTENT_BLOCKS } from "@/lib/client/content-blocks";
import { contentBlocksOf } from "@/lib/integrations/content-value";
import { toCallToolResult } from "@/lib/integrations/mcp/server-results";

// Which values the MCP endpoint serves as content blocks (an imported tool's image, say) and which
// stay structured content. The path through a real client is in import-gateway and conformance.

const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
const text = { type: "text", text: "a picture:" };

describe("a tool's value made of MCP content blocks", () => {
  it("is served as those blocks, in order, with nothing added", () => {
    expect(toCallToolResult({ ok: true, value: { content: [text, image] } }, undefined)).toEqual({ content: [text, image] });
  });

  it("keeps each block as it was (annotations and _meta included)", () => {
    const annotated = { ...image, annotations: { audience: ["user"], priority: 0.5 }, _meta: { "x/y": 1 } };
    expect(contentBlocksOf({ content: [annotated] })).toEqual([annotated]);
  });

  it("is an ordinary value when it is anything else", () => {
    // Another key beside content, an empty list, a block of no known type, a block missing a field.
    for (const value of [
      { content: [image], more: 1 },
      { content: [] },
      { content: [{ type: "video", data: "x" }] },
      { content: [{ type: "image", data: "x" }] },
      { content: "text" },
      [image],
    ]) {
      expect(contentBlocksOf(value)).toBeUndefined();
      const served = toCallToolResult({ ok: true, value }, undefined);
      expect(served.content).toEqual([{ type: "text", text: JSON.stringify(value) }]);
    }
  });

  it("is structured content past MAX_CONTENT_BLOCKS blocks (each costs a schema check)", () => {
    const many = { content: Array.from({ length: MAX_CONTENT_BLOCKS + 1 }, () => text) };
    expect(contentBlocksOf({ content: many.content.slice(1) })).toHaveLength(MAX_CONTENT_BLOCKS);
    expect(contentBlocksOf(many)).toBeUndefined();
    expect(toCallToolResult({ ok: true, value: many }, undefined).structuredContent).toEqual(many);
  });

  it("is structured content when the tool declares an output schema", () => {
    const schema = { type: "object", properties: { content: { type: "array" } } };
    const served = toCallToolResult({ ok: true, value: { content: [image] } }, schema);
    expect(served.structuredContent).toEqual({ content: [image] });
    expect(served.content).toEqual([{ type: "text", text: JSON.stringify({ content: [image] }) }]);
  });
});
