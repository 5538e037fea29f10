import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ToolCallEntry } from "@/components/chat/tool-call-entry";
import type { ToolCallView } from "@/lib/client";
import { contentBlocksOf } from "@/lib/client/content-blocks";
import { RED_DOT_PNG } from "../support/media";

// A tool result made of MCP content blocks (an imported MCP tool's image) on the timeline: shown as
// text, an image, a sound and resources, with its JSON a click away; anything else stays JSON.

const PNG = RED_DOT_PNG;
const call = (result: unknown): ToolCallView => ({
  id: "c1",
  name: "get-tiny-image",
  parentMessageId: "m1",
  argsText: "{}",
  args: {},
  status: "succeeded",
  result,
  startedAt: 0,
  durationMs: 12,
});

describe("a tool result of MCP content blocks", () => {
  it("reads text, images, sounds, resources and links", () => {
    const blocks = contentBlocksOf({
      content: [
        { type: "text", text: "Here it is:" },
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "test://doc", mimeType: "text/plain", text: "inside" } },
        { type: "resource", resource: { uri: "test://bin", blob: "AAAA" } },
        { type: "resource_link", uri: "https://example.com/report.pdf", name: "report" },
      ],
    });
    expect(blocks).toEqual([
      { type: "text", text: "Here it is:" },
      { type: "image", mimeType: "image/png", data: PNG, src: `data:image/png;base64,${PNG}` },
      { type: "audio", mimeType: "audio/wav", data: "UklGRg==", src: "data:audio/wav;base64,UklGRg==" },
      { type: "resource", uri: "test://doc", mimeType: "text/plain", text: "inside" },
      { type: "resource", uri: "test://bin", blobBytes: 3 },
      { type: "resource_link", uri: "https://example.com/report.pdf", name: "report" },
    ]);
  });

  it("shows inline only raster images and sounds whose data is base64", () => {
    const [svg, notBase64, mislabelled] = contentBlocksOf({
      content: [
        { type: "image", data: "PHN2Zz4=", mimeType: "image/svg+xml" },
        { type: "image", data: 'x" onerror="alert(1)', mimeType: "image/png" },
        { type: "image", data: PNG, mimeType: "audio/wav" },
      ],
    })!;
    for (const block of [svg, notBase64, mislabelled]) expect(block).not.toHaveProperty("src");
  });

  it("is not blocks when it is anything else", () => {
    for (const value of [
      { content: [{ type: "text", text: "a" }], more: true },
      { content: [] },
      { content: Array.from({ length: 1001 }, () => ({ type: "text", text: "a" })) },
      { content: [{ type: "video", data: PNG }] },
      { content: [{ type: "image", data: PNG }] },
      { content: "text" },
      [{ type: "text", text: "a" }],
      "text",
      null,
    ])
      expect(contentBlocksOf(value)).toBeUndefined();
  });

  it("shows the image on the timeline, with the JSON folded below", () => {
    const html = renderToStaticMarkup(
      <ToolCallEntry
        call={call({
          content: [
            { type: "text", text: "Here's the image you requested:" },
            { type: "image", data: PNG, mimeType: "image/png" },
          ],
        })}
      />,
    );
    expect(html).toContain(`<img src="data:image/png;base64,${PNG}" alt="Image from get-tiny-image (image/png)"`);
    expect(html).toContain("Here&#x27;s the image you requested:");
    expect(html).toContain('aria-label="Result of get-tiny-image as JSON"');
  });

  it("leaves any other result to the JSON view", () => {
    const html = renderToStaticMarkup(<ToolCallEntry call={call({ temperature: 21 })} />);
    expect(html).not.toContain("<img");
    expect(html).toContain('aria-label="Result of get-tiny-image"');
    expect(html).toContain("temperature");
  });
});
