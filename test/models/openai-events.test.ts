import { APIError } from "openai";
import { Stream } from "openai/streaming";
import { describe, expect, it } from "vitest";
import { openAIEventBatches } from "@/lib/agents/models/openai-events";

// The OpenAI drivers read a streamed answer's events themselves (openAIEvents) instead of through
// the SDK's Stream: the same events must come out of the same bytes, however they are cut.

function response(chunks: Uint8Array[], onCancel?: (reason: unknown) => void): Response {
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        if (!onCancel) controller.close();
      },
      cancel: onCancel,
    }),
    { status: 200, headers: { "content-type": "text/event-stream" } },
  );
}

/** `text` as UTF-8, cut every `size` bytes (through multi-byte characters too). */
function cut(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

/** The events of the batches, one after another. */
async function* openAIEvents<T>(answer: Response): AsyncGenerator<T> {
  for await (const batch of openAIEventBatches<T>(answer)) yield* batch;
}

async function all<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const chunk = (content: string) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1767225600,
  model: "m",
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});

// Chat Completions chunks and Responses events, with what the SSE format allows around them:
// comments, named events, CRLF and CR line ends, a data field without its space, a field split
// over two data lines, and text outside ASCII.
const WIRE = [
  ": keep-alive\n\n",
  `data: ${JSON.stringify(chunk("Grüße, "))}\n\n`,
  `data:${JSON.stringify(chunk("世界 🌍"))}\r\n\r\n`,
  `event: response.output_text.delta\ndata: ${JSON.stringify({ type: "response.output_text.delta", delta: "x" })}\n\n`,
  `data: {"type":"two lines",\ndata: "n":1}\r\r`,
  `id: 7\nretry: 10\ndata: ${JSON.stringify(chunk(""))}\n\n`,
  "data: [DONE]\n\n",
].join("");

describe("openAIEventBatches", () => {
  it("gives the events of one read together, in order", async () => {
    const frame = (content: string) => `data: ${JSON.stringify(chunk(content))}\n\n`;
    const reads = [frame("a") + frame("b"), frame("c").slice(0, 10), frame("c").slice(10) + frame("d")];
    const batches = await all(openAIEventBatches(response(reads.map((text) => new TextEncoder().encode(text)))));
    expect(batches).toEqual([
      [chunk("a"), chunk("b")],
      [chunk("c"), chunk("d")],
    ]);
  });

  it("gives the events the SDK's own reader gives, however the bytes are cut", async () => {
    const expected = await all(Stream.fromSSEResponse(response(cut(WIRE, WIRE.length * 4)), new AbortController()));
    expect(expected).toHaveLength(5);
    for (const size of [1, 2, 3, 7, 64, 100_000]) {
      expect(await all(openAIEvents(response(cut(WIRE, size))))).toEqual(expected);
    }
  });

  it("ends at [DONE]: what follows it is read and dropped", async () => {
    const text = `data: ${JSON.stringify(chunk("a"))}\n\ndata: [DONE]\n\ndata: ${JSON.stringify(chunk("b"))}\n\n`;
    expect(await all(openAIEvents(response(cut(text, 5))))).toEqual([chunk("a")]);
  });

  it("reads a last event the stream ends without a blank line after", async () => {
    expect(await all(openAIEvents(response(cut(`data: ${JSON.stringify(chunk("end"))}`, 9))))).toEqual([chunk("end")]);
  });

  it("throws an event carrying an error as the SDK's APIError, after the events before it", async () => {
    const text = `data: ${JSON.stringify(chunk("a"))}\n\ndata: ${JSON.stringify({ error: { message: "overloaded", type: "server_error" } })}\n\n`;
    const seen: unknown[] = [];
    const failure = await (async () => {
      for await (const event of openAIEvents(response(cut(text, 11)))) seen.push(event);
    })().catch((error: unknown) => error);
    expect(seen).toEqual([chunk("a")]);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).message).toBe("overloaded");
    expect((failure as APIError).type).toBe("server_error");
  });

  it("throws on data that is not JSON", async () => {
    await expect(all(openAIEvents(response(cut("data: {nope\n\n", 4))))).rejects.toThrow(SyntaxError);
  });

  it("refuses an event longer than 10 MB instead of holding it", async () => {
    // Never ended: the reader must give up on its own and cancel the answer.
    let cancelled = false;
    const huge = `data: "${"a".repeat(11 * 1024 * 1024)}`;
    const events = openAIEvents(response(cut(huge, 1024 * 1024), () => void (cancelled = true)));
    await expect(all(events)).rejects.toThrow(RangeError);
    expect(cancelled).toBe(true);
  });

  it("cancels the rest of the answer when the reader stops early", async () => {
    let cancelled = false;
    const text = `data: ${JSON.stringify(chunk("a"))}\n\ndata: ${JSON.stringify(chunk("b"))}\n\n`;
    for await (const event of openAIEvents(response(cut(text, 1000), () => void (cancelled = true)))) {
      expect(event).toEqual(chunk("a"));
      break;
    }
    expect(cancelled).toBe(true);
  });
});
