import { DomainError } from "../errors";

/** A page cursor that this console did not hand out. */
export class InvalidCursor extends DomainError<"invalid_cursor"> {
  override readonly name = "InvalidCursor";
  constructor() {
    super("invalid_cursor", "The cursor is not one this list returned");
  }
}

/** An opaque cursor for the position after `parts` (the sort keys of a page's last row). */
export function encodeCursor(parts: Array<string | number>): string {
  return Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");
}

/** The sort keys inside a cursor, checked against the expected types. Throws InvalidCursor. */
export function decodeCursor<const T extends Array<"string" | "number">>(
  cursor: string,
  types: T,
): { [K in keyof T]: T[K] extends "number" ? number : string } {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new InvalidCursor();
  }
  if (!Array.isArray(parts) || parts.length !== types.length || parts.some((part, i) => typeof part !== types[i]))
    throw new InvalidCursor();
  return parts as { [K in keyof T]: T[K] extends "number" ? number : string };
}
