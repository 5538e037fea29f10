/**
 * A body as text, reading at most `maxBytes` (refused unread when its declared length is over),
 * cancelling the rest once reading passes the cap so nothing more is buffered. With `strictUtf8` (the default),
 * invalid UTF-8 is refused rather than silently altered; without it, it is decoded leniently.
 */
export async function readCappedText(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  declaredLength?: string | null,
  strictUtf8 = true,
): Promise<{ ok: true; text: string } | { ok: false; reason: "too_large" | "invalid_utf8" }> {
  const declared = Number(declaredLength ?? "");
  // Refused unread: the caller decides what becomes of the body (a request's is dropped with it).
  if (declaredLength && Number.isFinite(declared) && declared > maxBytes) return { ok: false, reason: "too_large" };
  if (!body) return { ok: true, text: "" };
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return { ok: false, reason: "too_large" };
    }
    parts.push(value);
  }
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: strictUtf8 }).decode(Buffer.concat(parts)) };
  } catch {
    return { ok: false, reason: "invalid_utf8" };
  }
}
