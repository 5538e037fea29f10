import { createHash } from "node:crypto";
import type pg from "pg";

const names = new Map<string, string>();

/** The name `text` is prepared under: the same for the same text, in every store and instance. */
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) names.set(text, (name = `s_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`));
  return name;
}

/**
 * `text` with its `values` as a prepared statement: node-postgres prepares it on a connection's
 * first use and afterwards sends only its name and values, so PostgreSQL parses and plans it once
 * per connection rather than on every call. For the statements a store sends over and over (the
 * runs' long CTEs took a tenth of a run's time in `npm run bench -- postgres` that way). `text` must
 * come from a fixed set (constants, or a few variants of one): each distinct text keeps a name here
 * and a prepared statement on every connection that ran it.
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  return { name: statementName(text), text, values };
}
