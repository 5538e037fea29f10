import { DomainError } from "../../errors";
import { readCappedText } from "../../http/read-capped";

/** A body longer than the cap. */
export class ResponseTooLarge extends DomainError<"response_too_large"> {
  override readonly name = "ResponseTooLarge";
  constructor(readonly limit: number) {
    super("response_too_large", `the response is larger than ${limit} bytes`);
  }
}

/** The body as text, reading at most `maxBytes`; throws ResponseTooLarge past it (and cancels the rest). */
export async function readLimited(response: Response, maxBytes: number): Promise<string> {
  // A remote API's bytes are not ours to refuse for their encoding: decode them leniently.
  const read = await readCappedText(response.body, maxBytes, {
    declaredLength: response.headers.get("content-length"),
    strictUtf8: false,
  });
  if (!read.ok) {
    await response.body?.cancel().catch(() => {});
    throw new ResponseTooLarge(maxBytes);
  }
  return read.text;
}
