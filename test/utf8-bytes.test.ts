import { describe, expect, it } from "vitest";
import { utf8Bytes } from "@/lib/streams/utf8";

// Every case must give exactly the bytes Buffer.from gives, whatever the text and where its first
// character beyond ASCII falls (the encoder switches buffers there).
describe("utf8Bytes", () => {
  const frames = (delta: string, n: number) => {
    let text = "";
    for (let i = 0; i < n; i++) text += `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":${JSON.stringify(delta)}}\n\n`;
    return text;
  };
  const cases: Array<[string, string]> = [
    ["empty", ""],
    ["ASCII frames built by concatenation", frames("word ", 500)],
    ["a two-byte character at the very start", `é${frames("word ", 50)}`],
    ["a two-byte character at the very end", `${frames("word ", 50)}é`],
    ["a character beyond ASCII late in the text", `${frames("word ", 300)}${frames("wörd", 1)}${frames("word ", 3)}`],
    ["three-byte characters throughout", frames("日本語", 200)],
    ["a surrogate pair (four bytes) at the switch", `${"a".repeat(1000)}😀${"b".repeat(10)}`],
    ["only surrogate pairs", "😀".repeat(3000)],
    ["a lone high surrogate (U+FFFD, as Buffer.from writes it)", `abc\ud83dxyz`],
    ["a lone low surrogate at the end", `${"x".repeat(100)}\ude00`],
    ["Latin-1 characters only", "ÿ".repeat(5000)],
  ];
  it.each(cases)("%s", (_label, text) => {
    const bytes = utf8Bytes(text);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.equals(Buffer.from(text, "utf8"))).toBe(true);
    expect(bytes.length).toBe(Buffer.byteLength(text, "utf8"));
  });
});
