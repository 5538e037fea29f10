import { describe, expect, it } from "vitest";
import { freshDatabase } from "../support/database";
import { WriteJournal } from "./write-journal";

// The fuzz pass trusts the journal to see every write a refused request makes; this shows it does.
describe("the fuzz suite's write journal", () => {
  const handle = freshDatabase();
  const { sqlite } = handle;
  const journal = new WriteJournal(sqlite);
  const insertToken = sqlite.prepare("insert into api_tokens (id, name, hash, scopes) values (?, ?, ?, '[]')");

  it("records inserts, updates and deletes on the console's tables", () => {
    const mark = journal.mark();
    insertToken.run("t1", "one", "h1");
    sqlite.prepare("update api_tokens set name = 'renamed' where id = 't1'").run();
    sqlite.prepare("delete from api_tokens where id = 't1'").run();
    expect(journal.writtenSince(mark)).toEqual({ "api_tokens insert": 1, "api_tokens update": 1, "api_tokens delete": 1 });
  });

  it("leaves out what a refused request may write (a token's last use) and what rolled back", () => {
    insertToken.run("t2", "two", "h2");
    const mark = journal.mark();
    sqlite.prepare("update api_tokens set last_used_at = 1 where id = 't2'").run();
    const rolledBack = sqlite.transaction(() => {
      sqlite.prepare("update api_tokens set revoked_at = 1 where id = 't2'").run();
      throw new Error("refused");
    });
    expect(() => rolledBack()).toThrow("refused");
    expect(journal.writtenSince(mark)).toEqual({});
  });

  it("sees an update that changes no row count", () => {
    const mark = journal.mark();
    sqlite.prepare("update api_tokens set revoked_at = 2 where id = 't2'").run();
    expect(journal.writtenSince(mark)).toEqual({ "api_tokens update": 1 });
    journal.clear();
    expect(journal.writtenSince(0)).toEqual({});
    expect(journal.mark()).toBeGreaterThan(mark);
  });
});
