import { describe, expect, it } from "vitest";
import { ONE_PIECE_BYTES, readCappedText } from "@/lib/http/read-capped";

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

// Each case runs with no declared length (decoded chunk by chunk) and with a small one (decoded in one piece).
const declaredLengths = [
  { how: "chunk by chunk", declared: () => undefined },
  { how: "in one piece", declared: (bytes: number) => String(bytes) },
];

describe.each(declaredLengths)("readCappedText decodes $how", ({ declared }) => {
  it("joins a character whose bytes are split across chunks, and hands each decoded piece over in order", async () => {
    const bytes = utf8('{"name":"Zoë 🚀 café"}');
    for (let cut = 0; cut <= bytes.length; cut++) {
      const pieces: string[] = [];
      const read = await readCappedText(body(bytes.slice(0, cut), bytes.slice(cut)), 1024, {
        declaredLength: declared(bytes.length),
        onText: (p) => pieces.push(p),
      });
      expect(read).toEqual({ ok: true, text: '{"name":"Zoë 🚀 café"}' });
      expect(pieces.join("")).toBe('{"name":"Zoë 🚀 café"}');
    }
  });

  it("refuses invalid UTF-8 in a middle chunk, and a character cut off at the end", async () => {
    expect(await readCappedText(body(utf8("ab"), new Uint8Array([0xff]), utf8("cd")), 1024, { declaredLength: declared(5) })).toEqual({
      ok: false,
      reason: "invalid_utf8",
    });
    expect(await readCappedText(body(utf8("ab"), utf8("é").slice(0, 1)), 1024, { declaredLength: declared(3) })).toEqual({
      ok: false,
      reason: "invalid_utf8",
    });
    // A strict read that failed leaves nothing behind for the next one (the one-piece decoder is shared).
    expect(await readCappedText(body(utf8("é").slice(0, 1)), 1024, { declaredLength: declared(1) })).toEqual({
      ok: false,
      reason: "invalid_utf8",
    });
    expect(await readCappedText(body(utf8("é").slice(1)), 1024, { declaredLength: declared(1) })).toEqual({
      ok: false,
      reason: "invalid_utf8",
    });
  });

  it("decodes leniently when asked to", async () => {
    expect(
      await readCappedText(body(utf8("ab"), new Uint8Array([0xff])), 1024, { strictUtf8: false, declaredLength: declared(3) }),
    ).toEqual({
      ok: true,
      text: "ab\uFFFD",
    });
  });

  it("counts what arrives against the cap, whatever length was declared", async () => {
    const read = await readCappedText(body(utf8("x".repeat(600)), utf8("x".repeat(600))), 1000, { declaredLength: declared(10) });
    expect(read).toEqual({ ok: false, reason: "too_large" });
  });
});

describe("readCappedText", () => {
  it("decodes a body declared longer than ONE_PIECE_BYTES chunk by chunk, handing each piece over as it arrives", async () => {
    const chunk = "y".repeat(40_000);
    const pieces: string[] = [];
    const read = await readCappedText(body(utf8(chunk), utf8(chunk)), 1_000_000, {
      declaredLength: String(ONE_PIECE_BYTES + 1),
      onText: (p) => pieces.push(p),
    });
    expect(read).toEqual({ ok: true, text: chunk + chunk });
    expect(pieces).toEqual([chunk, chunk]);
  });

  it("refuses a body over the cap, counted as it arrives or declared", async () => {
    expect(await readCappedText(body(utf8("x".repeat(600)), utf8("x".repeat(600))), 1000)).toEqual({ ok: false, reason: "too_large" });
    expect(await readCappedText(body(utf8("x")), 1000, { declaredLength: "1001" })).toEqual({ ok: false, reason: "too_large" });
  });
});
