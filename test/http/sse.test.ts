import { expect, it } from "vitest";
import { sseBody } from "@/lib/http/sse";

async function* chunks(items: string[]): AsyncIterable<string> {
  for (const item of items) yield item;
}

async function read(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

it("writes each chunk as the UTF-8 bytes TextEncoder gives, lone surrogates included", async () => {
  const items = [
    'data: {"delta":"plain ASCII"}\n\n',
    'data: {"delta":"Łódź, 東京, ñ"}\n\n',
    'data: {"delta":"🙂 and 𝄞"}\n\n',
    // Half of a pair, as a model's token boundary may leave it: both encoders write U+FFFD.
    `data: {"delta":"\ud83d"}\n\ndata: {"delta":"\ude42"}\n\n`,
    "x".repeat(70_000),
  ];
  const written = await read(sseBody(chunks(items)));
  const expected = items.map((item) => new TextEncoder().encode(item));
  expect(written).toHaveLength(expected.length);
  written.forEach((chunk, i) => {
    expect(chunk).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(chunk).equals(Buffer.from(expected[i]!))).toBe(true);
  });
  expect(new TextDecoder().decode(written[1])).toBe(items[1]);
});
