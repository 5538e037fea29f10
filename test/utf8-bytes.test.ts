import { describe, expect, it } from "vitest";
import { utf8Bytes } from "@/lib/streams/utf8";

// Every case must give exactly the bytes Buffer.from gives, whatever the text and where its first
// character beyond ASCII falls (the encoder switches buffers there). Text under Buffer.poolSize / 2
// characters is Buffer.from's own; every other case is long enough to be encoded by utf8Bytes,
// which each case checks of itself, so none of them quietly compares Buffer.from with itself.
describe("utf8Bytes", () => {
  const frames = (delta: string, n: number) => {
    let text = "";
    for (let i = 0; i < n; i++) text += `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":${JSON.stringify(delta)}}\n\n`;
    return text;
  };
  const pooledBelow = Buffer.poolSize >>> 1;
  const cases: Array<[string, string, "pooled" | "encoded"]> = [
    ["empty", "", "pooled"],
    ["a short frame beyond ASCII", frames("héllo 😀", 1), "pooled"],
    ["ASCII frames built by concatenation", frames("word ", 500), "encoded"],
    ["a two-byte character at the very start", `é${frames("word ", 60)}`, "encoded"],
    ["a two-byte character at the very end", `${frames("word ", 60)}é`, "encoded"],
    ["a character beyond ASCII late in the text", `${frames("word ", 300)}${frames("wörd", 1)}${frames("word ", 3)}`, "encoded"],
    ["three-byte characters throughout", frames("日本語", 200), "encoded"],
    ["a surrogate pair (four bytes) at the switch", `${"a".repeat(5000)}😀${"b".repeat(10)}`, "encoded"],
    ["only surrogate pairs", "😀".repeat(3000), "encoded"],
    ["a lone high surrogate (U+FFFD, as Buffer.from writes it)", `abc\ud83dxyz${"y".repeat(5000)}`, "encoded"],
    ["a lone low surrogate at the end", `${"x".repeat(5000)}\ude00`, "encoded"],
    ["Latin-1 characters only", "ÿ".repeat(5000), "encoded"],
  ];
  it.each(cases)("%s", (_label, text, path) => {
    expect(text.length < pooledBelow ? "pooled" : "encoded").toBe(path);
    const bytes = utf8Bytes(text);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.equals(Buffer.from(text, "utf8"))).toBe(true);
    expect(bytes.length).toBe(Buffer.byteLength(text, "utf8"));
  });
});
