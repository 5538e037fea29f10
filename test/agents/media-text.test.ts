import { describe, expect, it } from "vitest";
import { mediaNamed, mediaNamedText } from "@/lib/agents/media-text";

// What a model reads of a tool's answer holding media: the bytes named, everything else kept.

const data = "A".repeat(4000);

describe("media in a tool's answer, as a model reads it", () => {
  it("names the data of images and sounds and the blob of resources, keeping every other field", () => {
    const answer = {
      ok: true,
      value: {
        content: [
          { type: "text", text: "Here:" },
          { type: "image", data, mimeType: "image/png", annotations: { audience: ["user"] } },
          { type: "audio", data, mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///r.bin", mimeType: "application/zip", blob: data } },
          { type: "resource", resource: { uri: "file:///r.txt", text: "kept" } },
        ],
      },
    };
    expect(mediaNamed(answer)).toEqual({
      ok: true,
      value: {
        content: [
          { type: "text", text: "Here:" },
          {
            type: "image",
            data: "[image/png, 3,000 bytes: shown to the person, not included here]",
            mimeType: "image/png",
            annotations: { audience: ["user"] },
          },
          { type: "audio", data: "[audio/wav, 3,000 bytes: shown to the person, not included here]", mimeType: "audio/wav" },
          {
            type: "resource",
            resource: { uri: "file:///r.bin", mimeType: "application/zip", blob: "[application/zip, 3,000 bytes: not included here]" },
          },
          { type: "resource", resource: { uri: "file:///r.txt", text: "kept" } },
        ],
      },
    });
    expect(mediaNamedText(JSON.stringify(answer))).not.toContain(data);
  });

  it("leaves text without media, and text that is not JSON, exactly as it was", () => {
    for (const text of ['{"ok":true,"value":{"data":"x","type":"table"}}', "plain words", '{"type":"image", broken', ' { "a" : 1 } '])
      expect(mediaNamedText(text)).toBe(text);
  });

  it("stops walking at a depth no tool answer reaches", () => {
    let deep: unknown = { type: "image", data, mimeType: "image/png" };
    for (let i = 0; i < 200; i++) deep = { inner: deep };
    expect(() => mediaNamed(deep)).not.toThrow();
    // Past the limit the value is kept as it was: the image 200 levels down keeps its bytes.
    let inner = mediaNamed(deep) as { inner?: unknown; data?: unknown };
    for (let i = 0; i < 200; i++) inner = inner.inner as typeof inner;
    expect(inner.data).toBe(data);
  });
});
