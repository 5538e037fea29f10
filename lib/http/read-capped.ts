import { turnAvailable } from "../streams/turn-budget";

export interface ReadCappedOptions {
  /** The declared Content-Length: over `maxBytes`, the body is refused unread. */
  declaredLength?: string | null;
  /** Refuse invalid UTF-8 rather than decode it leniently (the default). */
  strictUtf8?: boolean;
  /** Each piece of text as it is decoded, in order (to inspect it while the rest arrives). */
  onText?: (piece: string) => void;
}

/**
 * A body as text, reading at most `maxBytes` (refused unread when its declared length is over),
 * cancelling the rest once reading passes the cap so nothing more is buffered. Each chunk is
 * decoded as it arrives, so a large body costs the event loop one chunk's work at a time rather
 * than all of it at the end. With `strictUtf8` (the default), invalid UTF-8 is refused rather than
 * silently altered; without it, it is decoded leniently.
 */
export async function readCappedText(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  { declaredLength, strictUtf8 = true, onText }: ReadCappedOptions = {},
): Promise<{ ok: true; text: string } | { ok: false; reason: "too_large" | "invalid_utf8" }> {
  const declared = Number(declaredLength ?? "");
  // Refused unread: the caller decides what becomes of the body (a request's is dropped with it).
  if (declaredLength && Number.isFinite(declared) && declared > maxBytes) return { ok: false, reason: "too_large" };
  if (!body) return { ok: true, text: "" };
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8", { fatal: strictUtf8 });
  const pieces: string[] = [];
  const take = (piece: string) => {
    if (!piece) return;
    pieces.push(piece);
    onText?.(piece);
  };
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return { ok: false, reason: "too_large" };
    }
    // Chunks already buffered are read without a turn of the event loop between them: take one
    // when this turn's budget is spent, so a large body is decoded a share at a time.
    await turnAvailable();
    try {
      take(decoder.decode(value, { stream: true }));
    } catch {
      await reader.cancel().catch(() => {});
      return { ok: false, reason: "invalid_utf8" };
    }
  }
  try {
    take(decoder.decode());
  } catch {
    return { ok: false, reason: "invalid_utf8" };
  }
  return { ok: true, text: pieces.join("") };
}
