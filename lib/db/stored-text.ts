import { promisify } from "node:util";
import { deflateRaw, inflateRaw, inflateRawSync } from "node:zlib";

const deflateRawAsync = promisify(deflateRaw);
const inflateRawAsync = promisify(inflateRaw);

/** Texts shorter than this are stored as they are, readable in any SQLite shell. */
export const PACK_FROM_CHARS = 64 * 1024;

/** A long text as a SQLite text column keeps it: the text itself, or its UTF-8 raw-deflated (a BLOB). */
export type StoredText = string | Buffer;

/**
 * The form in which `text` is stored. A long one (an imported document: megabytes at times) is
 * deflated on libuv's thread pool: writing megabytes in one SQLite statement held the event loop
 * for 8-53 ms (a 2.3 MB document; its 46 KB deflated took 0.4-1.5 ms), and deflating megabytes
 * here would hold it instead.
 */
export async function packText(text: string): Promise<StoredText> {
  if (text.length < PACK_FROM_CHARS) return text;
  return deflateRawAsync(Buffer.from(text, "utf8"));
}

/** The text `stored` holds (see packText), inflated off the event loop when it was deflated. */
export async function unpackText(stored: StoredText): Promise<string> {
  return typeof stored === "string" ? stored : (await inflateRawAsync(stored)).toString("utf8");
}

/**
 * The text `stored` holds, inflated on this thread: for rows a synchronous read returns at once
 * (a run's event records, which RunEventWriter deflates in this same form from 16 KB).
 */
export function unpackTextNow(stored: StoredText): string {
  return typeof stored === "string" ? stored : inflateRawSync(stored).toString("utf8");
}
