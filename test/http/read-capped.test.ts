import { describe, expect, it } from "vitest";
import { readCappedText } from "@/lib/http/read-capped";

/** A body that arrives as these chunks, one per read. */
function body(...chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

const utf8 = (text: string) => new TextEncoder().encode(text);

describe("readCappedText decodes chunk by chunk", () => {
  it("joins a character whose bytes are split across chunks, and hands each decoded piece over in order", async () => {
    const bytes = utf8('{"name":"Zoë 🚀 café"}');
    for (let cut = 0; cut <= bytes.length; cut++) {
      const pieces: string[] = [];
      const read = await readCappedText(body(bytes.slice(0, cut), bytes.slice(cut)), 1024, { onText: (p) => pieces.push(p) });
      expect(read).toEqual({ ok: true, text: '{"name":"Zoë 🚀 café"}' });
      expect(pieces.join("")).toBe('{"name":"Zoë 🚀 café"}');
    }
  });

  it("refuses invalid UTF-8 in a middle chunk, and a character cut off at the end", async () => {
    expect(await readCappedText(body(utf8("ab"), new Uint8Array([0xff]), utf8("cd")), 1024)).toEqual({ ok: false, reason: "invalid_utf8" });
    expect(await readCappedText(body(utf8("ab"), utf8("é").slice(0, 1)), 1024)).toEqual({ ok: false, reason: "invalid_utf8" });
  });

  it("decodes leniently when asked to", async () => {
    expect(await readCappedText(body(utf8("ab"), new Uint8Array([0xff])), 1024, { strictUtf8: false })).toEqual({
      ok: true,
      text: "ab\uFFFD",
    });
  });

  it("refuses a body over the cap, counted as it arrives or declared", async () => {
    expect(await readCappedText(body(utf8("x".repeat(600)), utf8("x".repeat(600))), 1000)).toEqual({ ok: false, reason: "too_large" });
    expect(await readCappedText(body(utf8("x")), 1000, { declaredLength: "1001" })).toEqual({ ok: false, reason: "too_large" });
  });
});
