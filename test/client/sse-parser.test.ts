import { describe, expect, it } from "vitest";
import { SseParser } from "@/lib/client/sse-parser";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("SseParser", () => {
  it("joins multi-line data, drops one leading space, ignores comments and other fields", () => {
    const parser = new SseParser();
    expect(parser.push(bytes(': keepalive\n\nevent: x\nid: 1\ndata: {"a":\ndata:1}\n\nretry: 5\n\n'))).toEqual(['{"a":\n1}']);
  });

  it("reads CRLF and CR line ends, also when a CRLF is split across chunks", () => {
    const parser = new SseParser();
    expect(parser.push(bytes("data: one\r"))).toEqual([]);
    expect(parser.push(bytes("\n\r\ndata: two\r\r"))).toEqual(["one"]);
    expect(parser.push(bytes("data: three\n\n"))).toEqual(["two", "three"]);
  });

  it("keeps a partial frame until its blank line, and returns a last unterminated one at the end", () => {
    const parser = new SseParser();
    expect(parser.push(bytes("data: par"))).toEqual([]);
    expect(parser.push(bytes("tial\n"))).toEqual([]);
    expect(parser.push(bytes("\ndata: last"))).toEqual(["partial"]);
    expect(parser.end()).toEqual(["last"]);
  });

  it("refuses a frame past the size limit", () => {
    const parser = new SseParser(16);
    expect(() => parser.push(bytes(`data: ${"x".repeat(32)}`))).toThrow(RangeError);
  });
});
