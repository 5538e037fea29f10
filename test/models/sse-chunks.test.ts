import { describe, expect, it } from "vitest";
import { inSmallPieces } from "@/lib/agents/models/sse-chunks";

// The pieces a provider SDK gets of a streamed answer: never more than the bound, the same bytes in
// the same order, other answers untouched, and a cancel that reaches the connection.

function answer(chunks: Uint8Array[], contentType: string, onCancel?: (reason: unknown) => void): typeof fetch {
  return async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          if (!onCancel) controller.close();
        },
        cancel: onCancel,
      }),
      { status: 200, headers: { "content-type": contentType } },
    );
}

async function read(response: Response): Promise<Uint8Array[]> {
  const pieces: Uint8Array[] = [];
  for await (const piece of response.body as unknown as AsyncIterable<Uint8Array>) pieces.push(piece);
  return pieces;
}

const bytes = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) % 251);

describe("inSmallPieces", () => {
  it("hands an event stream over in pieces of at most the bound, the same bytes in order", async () => {
    const chunks = [bytes(10_000, 1), bytes(100, 2), bytes(4096, 3)];
    const response = await inSmallPieces(answer(chunks, "text/event-stream; charset=utf-8"), 4096)("http://127.0.0.1/");
    const pieces = await read(response);
    expect(pieces.map((piece) => piece.length)).toEqual([4096, 4096, 1808, 100, 4096]);
    expect(Buffer.concat(pieces)).toEqual(Buffer.concat(chunks));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  });

  it("leaves any other answer as it came", async () => {
    const chunks = [bytes(10_000, 4)];
    const response = await inSmallPieces(answer(chunks, "application/json"), 1024)("http://127.0.0.1/");
    expect((await read(response)).map((piece) => piece.length)).toEqual([10_000]);
  });

  it("passes a cancel on to the answer's own stream", async () => {
    let cancelled: unknown;
    const response = await inSmallPieces(answer([bytes(10, 5)], "text/event-stream", (reason) => void (cancelled = reason)))(
      "http://127.0.0.1/",
    );
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel("enough");
    expect(cancelled).toBe("enough");
  });
});
