import { and, eq, gt, lt, or, type AnyColumn, type SQL } from "drizzle-orm";
import { decodeCursor, encodeCursor } from "./cursor";

/** One page of rows, and the cursor of the next one (absent on the last page). */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** A page size from a caller's limit: `fallback` when absent, clamped to 1..max. */
export function pageSize(limit: number | undefined, fallback: number, max: number): number {
  return Math.min(Math.max(limit ?? fallback, 1), max);
}

/**
 * Keyset paging on a sort key and a unique tie-breaker, newest (highest) first: the condition for
 * the rows after `cursor`, or undefined for the first page. Throws InvalidCursor.
 */
export function afterDescending(cursor: string | undefined, key: AnyColumn, tieBreaker: AnyColumn): SQL | undefined {
  if (!cursor) return undefined;
  const [value, id] = decodeCursor(cursor, ["number", "string"]);
  return or(lt(key, value), and(eq(key, value), lt(tieBreaker, id)))!;
}

/** Keyset paging on a unique text key, in ascending order. Throws InvalidCursor. */
export function afterAscending(cursor: string | undefined, key: AnyColumn): SQL | undefined {
  if (!cursor) return undefined;
  return gt(key, decodeCursor(cursor, ["string"])[0]);
}

/**
 * The page of `rows` fetched with `limit + 1`: the first `limit`, and a cursor made of the last
 * one's sort keys when there were more.
 */
export function toPage<T>(rows: T[], limit: number, keys: (row: T) => Array<string | number>): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return rows.length > limit && last ? { items, nextCursor: encodeCursor(keys(last)) } : { items };
}
