/** The longest piece of a streamed answer handed to a provider SDK (see `inSmallPieces`). */
const SSE_PIECE_BYTES = 2048;

/**
 * A `fetch` whose event-stream answers reach the caller in pieces of at most `pieceBytes`.
 * The Gemini SDK splits a chunk into events by scanning all of it once per event: quadratic in the
 * chunk's size. A console that falls behind its model reads 64 KB chunks holding hundreds of
 * events, and that scanning then costs more than everything else the console does with the stream.
 * Pieces are views of the chunk (no copy). The OpenAI drivers read their events themselves
 * (./openai-events.ts).
 */
export function inSmallPieces(fetchFn: typeof fetch, pieceBytes = SSE_PIECE_BYTES): typeof fetch {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
    return new Response(pieces(response.body, pieceBytes), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function pieces(body: ReadableStream<Uint8Array>, pieceBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      for (let start = 0; start < value.length; start += pieceBytes) controller.enqueue(value.subarray(start, start + pieceBytes));
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
