import { or, sql, type AnyColumn, type SQL } from "drizzle-orm";

/** At most this many words of a search are matched (each one narrows the result). */
const MAX_WORDS = 8;

/** The words of a free-text search, lower-cased, at most MAX_WORDS. */
export function searchWords(text: string | undefined): string[] {
  return (text ?? "").toLowerCase().split(/\s+/).filter(Boolean).slice(0, MAX_WORDS);
}

/** A LIKE pattern matching `word` anywhere, with LIKE's own characters escaped by a backslash. */
export function containsPattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `word` appears in any of `columns` (SQLite's LIKE ignores ASCII case). The pattern's escapes
 * only work with the ESCAPE clause, which every comparison here carries.
 */
export function anyColumnContains(columns: Array<AnyColumn | SQL>, word: string): SQL {
  const pattern = containsPattern(word);
  return or(...columns.map((column) => sql`${column} like ${pattern} escape '\\'`))!;
}
