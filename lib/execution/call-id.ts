import { randomUUID } from "node:crypto";

/** The time in milliseconds as 12 hex digits: ids that begin with it sort in the order they were made. */
function timeHex(): string {
  return Date.now().toString(16).padStart(12, "0");
}

/**
 * A call id made by the console (a call whose client gave none): a UUID of version 7 (RFC 9562),
 * the time in milliseconds first and 74 random bits after. Ids made one after another sort
 * together, so the call records of a busy console land on the same index pages of call_results
 * (whose key begins with the call id, lib/db/schema.ts) instead of one random page each.
 */
export function newCallId(): string {
  const time = timeHex();
  // A version 4 UUID's random bits and variant, behind the time and the version 7 nibble.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}

/**
 * The id of a tool call an agent run makes, in the form models are used to: "call_", the time
 * (12 hex digits) and 64 random bits. Time first for the same reason as newCallId. 33 characters:
 * OpenAI takes tool call ids of at most 40.
 */
export function newToolCallId(): string {
  const random = randomUUID().replaceAll("-", "");
  // Skipping the version nibble (index 12): every digit kept is random.
  return `call_${timeHex()}${random.slice(0, 12)}${random.slice(13, 17)}`;
}
