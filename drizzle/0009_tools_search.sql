-- Tool search through an FTS5 index (issue 18, part 4). Hand-written: drizzle-kit does not know
-- virtual tables or triggers, so none of this appears in lib/db/schema.ts.
--
-- tools_search is contentless (it stores only the index, not a copy of the text) with
-- contentless_delete, so a row leaves the index by its rowid alone. Its rowid is the tools row's
-- rowid. The default unicode61 tokenizer splits on every character that is not a letter or a
-- digit, so the parts of `github.issues.create_comment` are words of their own, and it folds case
-- and diacritics. A camelCase name is indexed twice, whole and with a space put before each
-- capital, so `getResource` is found by `getres`, by `resource`, and `HTTPServer` by `http` and
-- `server`. lib/db/tool-search.ts writes the queries.
--
-- tools_search_document is the one definition of what is indexed: the triggers and the backfill
-- below read it.
CREATE VIEW `tools_search_document` AS
  SELECT rowid AS id,
         CASE WHEN name GLOB '*[A-Z]*' THEN name || ' ' || replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(name, 'A', ' A'), 'B', ' B'), 'C', ' C'), 'D', ' D'), 'E', ' E'), 'F', ' F'), 'G', ' G'), 'H', ' H'), 'I', ' I'), 'J', ' J'), 'K', ' K'), 'L', ' L'), 'M', ' M'), 'N', ' N'), 'O', ' O'), 'P', ' P'), 'Q', ' Q'), 'R', ' R'), 'S', ' S'), 'T', ' T'), 'U', ' U'), 'V', ' V'), 'W', ' W'), 'X', ' X'), 'Y', ' Y'), 'Z', ' Z') ELSE name END AS name,
         title || ' ' || description || ' ' || tags AS body
    FROM tools;
--> statement-breakpoint
CREATE VIRTUAL TABLE `tools_search` USING fts5(name, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
INSERT INTO tools_search(rowid, name, body) SELECT id, name, body FROM tools_search_document;
--> statement-breakpoint
CREATE TRIGGER `tools_search_insert` AFTER INSERT ON `tools` BEGIN
  INSERT INTO tools_search(rowid, name, body) SELECT id, name, body FROM tools_search_document WHERE id = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `tools_search_update` AFTER UPDATE OF name, title, description, tags ON `tools` BEGIN
  DELETE FROM tools_search WHERE rowid = old.rowid;
  INSERT INTO tools_search(rowid, name, body) SELECT id, name, body FROM tools_search_document WHERE id = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `tools_search_delete` AFTER DELETE ON `tools` BEGIN
  DELETE FROM tools_search WHERE rowid = old.rowid;
END;
