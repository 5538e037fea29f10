import { turnAvailable } from "../streams/turn-budget";

export interface ReadCappedOptions {
  /** The declared Content-Length: over `maxBytes`, the body is refused unread. */
  declaredLength?: string | null;
  /** Refuse invalid UTF-8 rather than decode it leniently (the default). */
  strictUtf8?: boolean;
  /** Each piece of text as it is decoded, in order (to inspect it while the rest arrives). */
  onText?: (piece: string) => void;
}

export type CappedText = { ok: true; text: string } | { ok: false; reason: "too_large" | "invalid_utf8" };

/**
 * A body declared at most this long is decoded in one piece once it has all arrived, by a decoder
 * shared by every such body: decoding it chunk by chunk (a decoder made for the body, a turn of the
 * event loop checked per chunk) took 20-25 µs of a 100-byte JSON-RPC request, as much as the
 * console's MCP handler spends on anything else of its own. One piece of 64 KiB decodes in well
 * under a millisecond.
 */
export const ONE_PIECE_BYTES = 64 * 1024;

// decode() without { stream: true } keeps no state between calls, so one decoder serves every body.
const strictDecoder = new TextDecoder("utf-8", { fatal: true });
const lenientDecoder = new TextDecoder("utf-8");

/**
 * A body as text, reading at most `maxBytes` (refused unread when its declared length is over),
 * cancelling the rest once reading passes the cap so nothing more is buffered. A larger body (or
 * one of unknown length) is decoded chunk by chunk as it arrives, so it costs the event loop one
 * chunk's work at a time rather than all of it at the end. With `strictUtf8` (the default),
 * invalid UTF-8 is refused rather than silently altered; without it, it is decoded leniently.
 */
export async function readCappedText(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  { declaredLength, strictUtf8 = true, onText }: ReadCappedOptions = {},
): Promise<CappedText> {
  const declared = declaredLength ? Number(declaredLength) : NaN;
  // Refused unread: the caller decides what becomes of the body (a request's is dropped with it).
  if (declared > maxBytes) return { ok: false, reason: "too_large" };
  if (!body) return { ok: true, text: "" };
  const reader = body.getReader();
  // The cap still counts what arrives: a declared length is the peer's word, not a bound.
  if (declared <= ONE_PIECE_BYTES) return readOnePiece(reader, maxBytes, strictUtf8 ? strictDecoder : lenientDecoder, onText);
  const decoder = new TextDecoder("utf-8", { fatal: strictUtf8 });
  const pieces: string[] = [];
  const take = (piece: string) => {
    if (!piece) return;
    pieces.push(piece);
    onText?.(piece);
  };
  const read = await eachChunk(reader, maxBytes, async (chunk) => {
    // Chunks already buffered are read without a turn of the event loop between them: take one
    // when this turn's budget is spent, so a large body is decoded a share at a time.
    await turnAvailable();
    try {
      take(decoder.decode(chunk, { stream: true }));
      return true;
    } catch {
      return false;
    }
  });
  if (read !== "ended") return { ok: false, reason: read === "too_large" ? "too_large" : "invalid_utf8" };
  try {
    take(decoder.decode());
  } catch {
    return { ok: false, reason: "invalid_utf8" };
  }
  return { ok: true, text: pieces.join("") };
}

/** The whole body's bytes, then their text in one decode. */
async function readOnePiece(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number,
  decoder: TextDecoder,
  onText: ((piece: string) => void) | undefined,
): Promise<CappedText> {
  const chunks: Uint8Array[] = [];
  const read = await eachChunk(reader, maxBytes, (chunk) => {
    chunks.push(chunk);
    return true;
  });
  if (read !== "ended") return { ok: false, reason: "too_large" };
  let text: string;
  try {
    text = decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  } catch {
    return { ok: false, reason: "invalid_utf8" };
  }
  if (text) onText?.(text);
  return { ok: true, text };
}

/**
 * Read the body to its end, handing each chunk to `take`. Past `maxBytes` in all, or when `take`
 * answers false, the rest is cancelled (nothing more is buffered) and reading ends there.
 */
async function eachChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number,
  take: (chunk: Uint8Array) => boolean | Promise<boolean>,
): Promise<"ended" | "too_large" | "refused"> {
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return "ended";
    total += value.byteLength;
    const refusal = total > maxBytes ? "too_large" : (await take(value)) ? undefined : "refused";
    if (refusal) {
      await reader.cancel().catch(() => {});
      return refusal;
    }
  }
}
