import type Database from "better-sqlite3";

/**
 * Columns a refused request may still write, by table, and why. A bearer token's last use is
 * recorded when the token is verified, before the request is read, so a request with a good token
 * and a bad body touches it; that is bookkeeping about the token, not a change the request asked for.
 */
export const WRITES_A_REFUSAL_MAY_MAKE: Readonly<Record<string, readonly string[]>> = {
  api_tokens: ["last_used_at"],
};

/** One write the journal saw: which table, and insert, update or delete. */
export interface JournalEntry {
  table: string;
  op: string;
}

/**
 * Every insert, update and delete on the console's tables, recorded by TEMP triggers on the
 * console's own connection (they live in this connection's temp schema only: the database file
 * and its migrations are untouched). A statement that rolls back takes its journal rows with it,
 * so what the journal holds is what was committed, on any table, including updates that row
 * counts would miss. The columns in WRITES_A_REFUSAL_MAY_MAKE are left out of the update triggers.
 */
export class WriteJournal {
  private readonly count: Database.Statement;
  private readonly since: Database.Statement;

  constructor(private readonly sqlite: Database.Database) {
    sqlite.exec("create temp table fuzz_writes (seq integer primary key autoincrement, tbl text not null, op text not null)");
    const all = sqlite
      .prepare("select name, sql from main.sqlite_master where type = 'table' and name not like 'sqlite_%'")
      .all() as Array<{
      name: string;
      sql: string;
    }>;
    // A virtual table (the tools_search index) takes no trigger, and it and its shadow tables are
    // written only by the triggers of the table they index, whose writes are journaled already.
    const virtual = all.filter((t) => /^create virtual table/i.test(t.sql)).map((t) => t.name);
    const tables = all.map((t) => t.name).filter((name) => !virtual.some((v) => name === v || name.startsWith(`${v}_`)));
    for (const table of tables) {
      const ident = `"${table.replaceAll('"', '""')}"`;
      const literal = `'${table.replaceAll("'", "''")}'`;
      const may = new Set(WRITES_A_REFUSAL_MAY_MAKE[table] ?? []);
      const columns = (sqlite.prepare(`select name from pragma_table_info(${literal})`).all() as Array<{ name: string }>)
        .map((c) => c.name)
        .filter((c) => !may.has(c));
      const watched = columns.map((c) => `"${c.replaceAll('"', '""')}"`).join(", ");
      for (const [op, event] of [
        ["insert", "insert"],
        ["delete", "delete"],
        ["update", `update of ${watched}`],
      ] as const) {
        sqlite.exec(
          `create temp trigger "fuzz_${op}_${table}" after ${event} on main.${ident} ` +
            `begin insert into temp.fuzz_writes (tbl, op) values (${literal}, '${op}'); end`,
        );
      }
    }
    // The last sequence number handed out, which clear() does not reset (max(seq) would).
    this.count = sqlite.prepare("select coalesce((select seq from temp.sqlite_sequence where name = 'fuzz_writes'), 0) as n");
    this.since = sqlite.prepare('select tbl as "table", op from temp.fuzz_writes where seq > ? order by seq');
  }

  /** A position in the journal, to ask later what was written after it. */
  mark(): number {
    return (this.count.get() as { n: number }).n;
  }

  /** The writes after `mark`, as "table op" lines counted, e.g. { "approvals update": 1 }. */
  writtenSince(mark: number): Record<string, number> {
    const summary: Record<string, number> = {};
    for (const { table, op } of this.since.all(mark) as JournalEntry[]) summary[`${table} ${op}`] = (summary[`${table} ${op}`] ?? 0) + 1;
    return summary;
  }

  /** Forget what was recorded (the journal grows with every write of a long pass). */
  clear(): void {
    this.sqlite.exec("delete from temp.fuzz_writes");
  }
}
