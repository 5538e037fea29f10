import { randomUUID } from "node:crypto";

/**
 * A call id made by the console (a call whose client gave none): a UUID of version 7 (RFC 9562),
 * the time in milliseconds first and 74 random bits after. Ids made one after another sort
 * together, so the call records of a busy scope land on the same index pages of call_results
 * instead of one random page each: a third of the write's cost in SQLite (see bench/mcp.ts).
 */
export function newCallId(): string {
  const time = Date.now().toString(16).padStart(12, "0");
  // A version 4 UUID's random bits and variant, behind the time and the version 7 nibble.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}
