/** A body longer than the cap. */
export class ResponseTooLarge extends Error {
  override readonly name = "ResponseTooLarge";
  readonly kind = "response_too_large";
  constructor(readonly limit: number) {
    super(`the response is larger than ${limit} bytes`);
  }
}

/** The body as text, reading at most `maxBytes`; throws ResponseTooLarge past it (and cancels the rest). */
export async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new ResponseTooLarge(maxBytes);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ResponseTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
