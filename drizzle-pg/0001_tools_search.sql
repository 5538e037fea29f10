-- Tool search through a GIN index over a tsvector expression (issue 18, part 4): the PostgreSQL
-- twin of drizzle/0009_tools_search.sql. Hand-written: drizzle-kit does not model expression
-- indexes of this kind, so it is not in lib/db/schema.pg.ts.
--
-- The 'simple' configuration folds case and keeps every word (no stemming, no stop words). Its
-- parser reads `github.issues.create_comment` as a host name, and paths, e-mail addresses and
-- URLs as single tokens, so those characters become spaces first. A camelCase name is indexed
-- whole and with a space before each capital, as in SQLite. The query in lib/db/tool-search.ts
-- repeats this expression exactly: PostgreSQL uses the index only for the same expression.
CREATE INDEX "tools_search_idx" ON "tools" USING gin (
  to_tsvector('simple'::regconfig, translate(CASE WHEN name ~ '[A-Z]' THEN name || ' ' || regexp_replace(name, '([A-Z])', ' \1', 'g') ELSE name END || ' ' || title || ' ' || description || ' ' || tags::text, '._-/@:', '      '))
);
