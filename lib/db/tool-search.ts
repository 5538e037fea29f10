import { sql, type SQL } from "drizzle-orm";
import { tools } from "./schema";
import { searchWords } from "./search";

/*
 * Text search over tools, through the index each dialect's migration builds:
 * drizzle/0009_tools_search.sql (SQLite FTS5, kept in step by triggers) and
 * drizzle-pg/0001_tools_search.sql (a GIN index over a tsvector expression).
 *
 * What a user types: each word is the start of a word of the tool's name, title, description or
 * tags, ignoring case; a word written with dots, underscores or dashes (`issues.create`,
 * `create_comm`) must find those parts next to each other, the last one as a prefix. Every word
 * must match. Both dialects build their query from the same parts, so they answer the same.
 *
 * The query text never reaches either engine's query syntax as written: a word is reduced to its
 * letters and digits before it is quoted, so quotes, `*`, `-`, `NEAR(`, `name:`, `&`, `|`, `!`
 * and parentheses are separators, not operators. A word with no letter or digit is dropped, and a
 * search with no word left is no search at all (the plain list).
 */

/** The runs of letters and digits in a word: what both tokenizers keep as words. */
const WORD_PARTS = /[\p{L}\p{N}\p{Co}]+/gu;

/** At most this many parts of one word are matched (a longer word still narrows the result). */
const MAX_PARTS = 16;

/** At most this many characters of one part are matched (both engines cap their tokens). */
const MAX_PART_LENGTH = 64;

/**
 * The words of a search, each as its lower-cased letter-and-digit parts; words with no part are
 * dropped. Empty when nothing searchable is left.
 */
export function toolSearchTerms(text: string | undefined): string[][] {
  return searchWords(text)
    .map((word) => (word.match(WORD_PARTS) ?? []).slice(0, MAX_PARTS).map((part) => part.slice(0, MAX_PART_LENGTH)))
    .filter((parts) => parts.length > 0);
}

/**
 * The FTS5 MATCH expression for `terms`: one quoted phrase per word, its last part a prefix, the
 * phrases joined by FTS5's implicit AND. Parts hold only letters and digits, so quoting cannot be
 * broken out of. Undefined for no terms.
 */
export function ftsMatchExpression(terms: string[][]): string | undefined {
  if (!terms.length) return undefined;
  return terms.map((parts) => `"${parts.join(" ")}"*`).join(" ");
}

/**
 * The to_tsquery text for `terms`: a word's parts follow each other (`<->`), the last one a prefix
 * (`:*`), and words are joined by `&`. Parts hold only letters and digits, none of to_tsquery's
 * operators. Undefined for no terms.
 */
export function tsQueryExpression(terms: string[][]): string | undefined {
  if (!terms.length) return undefined;
  return terms.map((parts) => `(${parts.map((part, i) => (i === parts.length - 1 ? `${part}:*` : part)).join(" <-> ")})`).join(" & ");
}

/**
 * SQLite: the condition for `terms`, or undefined when there is nothing to search. A query using
 * it joins the index with `withToolSearch` (a join measured a quarter faster than `rowid in
 * (select …)` at 100k tools when thousands match).
 */
export function sqliteToolMatches(terms: string[][]): SQL | undefined {
  const match = ftsMatchExpression(terms);
  return match === undefined ? undefined : sql`tools_search match ${match}`;
}

/** SQLite: `query` (a select from tools) joined with the search index on the tools row's rowid. */
export function withToolSearch<Q extends { innerJoin(table: SQL, on: SQL): unknown }>(query: Q): ReturnType<Q["innerJoin"]> {
  return query.innerJoin(sql`tools_search`, sql`tools_search.rowid = ${tools}.rowid`) as ReturnType<Q["innerJoin"]>;
}

/**
 * PostgreSQL: the condition on `tools` for `terms`, or undefined when there is nothing to search.
 * The tsvector expression is the one drizzle-pg/0001_tools_search.sql indexes, character for
 * character: written any other way, PostgreSQL would scan the table instead of using the index.
 */
export function pgToolMatches(terms: string[][]): SQL | undefined {
  const query = tsQueryExpression(terms);
  if (query === undefined) return undefined;
  return sql`to_tsvector('simple'::regconfig, translate(CASE WHEN name ~ '[A-Z]' THEN name || ' ' || regexp_replace(name, '([A-Z])', ' \\1', 'g') ELSE name END || ' ' || title || ' ' || description || ' ' || tags::text, '._-/@:', '      ')) @@ to_tsquery('simple'::regconfig, ${query})`;
}
