import type { Statement } from "better-sqlite3";
import { and, asc, eq, getTableColumns, ne, sql, type Column, type SQL } from "drizzle-orm";
import { DomainError } from "../errors";
import type { Db } from "./connection";
import { afterAscending, pageSize, toPage, type Page } from "./paging";
import { sources, tools, toolEvents } from "./schema";
import { sqliteToolMatches, toolSearchTerms, withToolSearch } from "./tool-search";

export type ToolRow = typeof tools.$inferSelect;
export type ToolEventRow = typeof toolEvents.$inferInsert;

/** The columns an operator controls on a tool. */
export type ToolSettingsColumns = Pick<ToolRow, "enabled" | "approval" | "timeoutMs" | "retries" | "targets" | "updatedAt">;

export interface ToolRowFilter {
  target?: string;
  tag?: string;
  sourceId?: string;
  kind?: string;
  effects?: ToolRow["effects"];
  /** Only tools that ask for approval (true) or that never do (false), as operators set them. */
  needsApproval?: boolean;
  enabled?: boolean;
  /**
   * Words that must each start a word of the name, title, description or tags (case-insensitive;
   * `create_comm` finds the parts of `create_comment`). See lib/db/tool-search.ts.
   */
  text?: string;
  cursor?: string;
  /** Page size, 1 to 1000 (default 100). */
  limit?: number;
}

/** The columns a definition upsert leaves as stored. */
const SETTINGS_AND_CREATION = new Set(["name", "enabled", "approval", "timeoutMs", "retries", "targets", "createdAt"]);

/** Writes of the tools table go in chunks: SQLite caps the variables of one statement. */
export const INSERT_CHUNK = 200;

/**
 * The rows of an import written in one turn of the event loop on SQLite. The whole of a
 * 5,000-tool import in one transaction held the loop 0.2 s (one prepared statement) to 0.9 s
 * (drizzle's insert); see ToolRows.insertImported.
 */
export const IMPORT_BATCH = 100;

/** What an operator changes on a tool: the settings given, and when. */
export type ToolSettingsChange = Partial<Omit<ToolSettingsColumns, "updatedAt">> & Pick<ToolRow, "updatedAt">;

/** A tool's row before and after a change of its settings. */
export interface ToolSettingsUpdate {
  before: ToolRow;
  after: ToolRow;
}

/** Raised when a tool is inserted under a name already stored; nothing of the write is kept. */
export class ToolNameTaken extends Error {
  override readonly name = "ToolNameTaken";
  constructor(readonly tool: string) {
    super(`A tool named "${tool}" is already stored`);
  }
}

/**
 * Raised by insertImported on PostgreSQL when its source is no longer importing: a sweep took the
 * import for abandoned (its importer's claim connection had died) or the source was deleted.
 * Nothing of the write is kept. A 503: the import lost its hold on the database, and may be tried again.
 */
export class SourceNotImporting extends DomainError<"database_unavailable"> {
  override readonly name = "SourceNotImporting";
  constructor(readonly sourceId: string) {
    super(
      "database_unavailable",
      `The import of source ${sourceId} lost its hold on the database (was it restarted?) and was removed; nothing was written, import it again`,
    );
  }
}

/**
 * The tools table and its audit trail (tool_events), on either dialect: ToolRows below (SQLite)
 * and PgToolRows (./postgres/tools). Every write is one transaction.
 */
export interface ToolRowStore {
  /** Every row. */
  all(): Promise<ToolRow[]>;
  /** The rows of those of `names` that exist. */
  byNames(names: readonly string[]): Promise<ToolRow[]>;
  /** Insert rows, all or nothing. Rejects with ToolNameTaken when a name is stored already. */
  insertMany(rows: ToolRow[]): Promise<void>;
  /**
   * Insert the rows of the source `sourceId`, which was created with status "importing", then
   * mark it "ok": all or nothing, however many rows, without holding the event loop for the
   * whole write. Until the source is marked, none of its rows is read (all, byNames, page) and
   * their names are taken; on a failure the rows written are deleted before the promise rejects
   * (the source row is the caller's). Rejects with ToolNameTaken when a name is stored already,
   * and on PostgreSQL with SourceNotImporting when the source is gone or no longer importing.
   */
  insertImported(sourceId: string, rows: ToolRow[]): Promise<void>;
  /**
   * Insert rows, or replace the definition of those whose name is stored (keeping their settings
   * and creation time). Resolves with the rows as stored. Instances doing it at once for the same
   * names both succeed.
   */
  upsertDefinitions(rows: ToolRow[]): Promise<ToolRow[]>;
  /**
   * Apply `change` to a tool's settings, with a "settings_changed" audit row (before and after)
   * when `actor` is given. Settings left out keep their stored value. Resolves with the row before
   * and after, or undefined for an unknown tool.
   */
  updateSettings(name: string, change: ToolSettingsChange, actor?: string): Promise<ToolSettingsUpdate | undefined>;
  /** Delete a tool; resolves with whether it existed. */
  delete(name: string): Promise<boolean>;
  /** Delete every tool of a source; resolves with the names that went. */
  deleteBySource(sourceId: string): Promise<string[]>;
  /**
   * Replace a source's tools with `rows`: a row whose name the source had keeps that tool's
   * settings. All or nothing; rejects with ToolNameTaken when a row's name belongs to a tool
   * outside the source. Resolves with the names removed and the rows as stored.
   */
  replaceSource(sourceId: string, rows: ToolRow[]): Promise<{ removed: string[]; rows: ToolRow[] }>;
  /**
   * A page of rows in name order, filtered, with the count of every row the filter matches. A
   * search whose text is exactly a tool's name lists that tool first, on the first page only.
   * Rejects with InvalidCursor.
   */
  page(filter: ToolRowFilter): Promise<ToolRowPage>;
}

export type ToolRowPage = Page<ToolRow> & { total: number };

/**
 * The page of `rows` (fetched with `limit + 1`, in name order, without `exact`) led by `exact`, the
 * tool named exactly by the search, when there is one. A page holding only that tool continues
 * from the start of the name order (which skips it).
 */
export function pageLedBy(exact: ToolRow | undefined, rows: ToolRow[], limit: number, total: number): ToolRowPage {
  return { ...toPage(exact ? [exact, ...rows] : rows, limit, (row) => [row === exact ? "" : row.name]), total };
}

/** The settings columns of a row, as a tool's audit trail records them. */
export function settingsColumns(row: ToolRow): Omit<ToolSettingsColumns, "updatedAt"> {
  return { enabled: row.enabled, approval: row.approval, timeoutMs: row.timeoutMs, retries: row.retries, targets: [...row.targets] };
}

/** `row` with `change` applied. */
export function withSettings(row: ToolRow, change: ToolSettingsChange): ToolRow {
  const given = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined)) as ToolSettingsChange;
  return { ...row, ...given };
}

/** The audit row of a settings change. */
export function settingsEvent(name: string, actor: string, update: ToolSettingsUpdate): ToolEventRow {
  const at = update.after.updatedAt;
  return {
    tool: name,
    type: "settings_changed",
    actor,
    data: { before: settingsColumns(update.before), after: settingsColumns(update.after) },
    createdAt: at,
    updatedAt: at,
  };
}

/** The new rows of a source, each keeping the settings of the tool of that name it had. */
export function keepingSettings(rows: ToolRow[], old: ToolRow[], now: number): ToolRow[] {
  const before = new Map(old.map((row) => [row.name, row]));
  return rows.map((row) => {
    const kept = before.get(row.name);
    return kept ? { ...row, ...settingsColumns(kept), updatedAt: now } : row;
  });
}

/** The names in `rows` missing from `stored`: the first one, or undefined when every row was stored. */
export function firstNotStored(rows: ToolRow[], stored: ReadonlyArray<{ name: string }>): string | undefined {
  const names = new Set(stored.map((row) => row.name));
  return rows.find((row) => !names.has(row.name))?.name;
}

/**
 * The tools table and its audit trail on SQLite. The methods are async to share ToolRowStore with
 * PostgreSQL, but each body stays synchronous (a better-sqlite3 transaction must never await), so
 * a write has committed before its promise is returned.
 */
export class ToolRows implements ToolRowStore {
  private readonly statements;
  /** Sources whose rows insertImported is writing: their rows are not read until they are all in. */
  private readonly importing = new Set<string>();
  /** insertImported's statement and the columns it binds, made on first use. */
  private importInsert: { statement: Statement; columns: Array<[keyof ToolRow, Column]> } | undefined;

  constructor(private readonly db: Db) {
    const p = (name: string) => sql.placeholder(name);
    this.statements = {
      all: db.select().from(tools).prepare(),
      byName: db
        .select()
        .from(tools)
        .where(eq(tools.name, p("name")))
        .prepare(),
      deleteByName: db
        .delete(tools)
        .where(eq(tools.name, p("name")))
        .prepare(),
      deleteBySource: db
        .delete(tools)
        .where(eq(tools.sourceId, p("sourceId")))
        .returning({ name: tools.name })
        .prepare(),
      bySource: db
        .select()
        .from(tools)
        .where(eq(tools.sourceId, p("sourceId")))
        .prepare(),
      updateSettings: db
        .update(tools)
        .set({
          enabled: p("enabled"),
          approval: p("approval"),
          timeoutMs: p("timeoutMs"),
          retries: p("retries"),
          targets: p("targets"),
          updatedAt: p("updatedAt"),
        } as never)
        .where(eq(tools.name, p("name")))
        .prepare(),
    };
  }

  async all(): Promise<ToolRow[]> {
    return this.allNow();
  }

  /** Every row, read at once (the registry's synchronous start on SQLite). */
  allNow(): ToolRow[] {
    return this.visible(this.statements.all.all());
  }

  async byNames(names: readonly string[]): Promise<ToolRow[]> {
    return this.visible(names.flatMap((name) => this.statements.byName.all({ name })));
  }

  async insertMany(rows: ToolRow[]): Promise<void> {
    this.db.transaction((tx) => this.insertIn(tx, rows));
  }

  /**
   * insertImported on SQLite: one short transaction per IMPORT_BATCH rows with a turn of the event
   * loop between them (a transaction left open across turns on the shared connection would take in
   * other requests' writes), and the source marked "ok" in the same turn its rows become readable.
   */
  async insertImported(sourceId: string, rows: ToolRow[]): Promise<void> {
    this.importing.add(sourceId);
    const written: string[] = [];
    try {
      const { statement, columns } = (this.importInsert ??= this.prepareImportInsert());
      // Bound as drizzle binds them (each column's own encoder), through one prepared statement:
      // drizzle's insert builds and prepares a statement for every batch, 4 times the cost.
      const insert = this.db.$client.transaction((batch: ToolRow[]) => {
        for (const row of batch) {
          if (statement.run(columns.map(([key, column]) => encoded(column, row[key]))).changes === 0) throw new ToolNameTaken(row.name);
        }
      });
      for (let i = 0; i < rows.length; i += IMPORT_BATCH) {
        await nextTurn();
        const batch = rows.slice(i, i + IMPORT_BATCH);
        insert(batch);
        for (const row of batch) written.push(row.name);
      }
      this.db.update(sources).set({ status: "ok", updatedAt: Date.now() }).where(eq(sources.id, sourceId)).run();
    } catch (error) {
      for (let i = 0; i < written.length; i += IMPORT_BATCH) {
        if (i) await nextTurn();
        const names = written.slice(i, i + IMPORT_BATCH);
        this.db.transaction(() => names.forEach((name) => this.statements.deleteByName.run({ name })));
      }
      throw error;
    } finally {
      this.importing.delete(sourceId);
    }
  }

  private prepareImportInsert(): { statement: Statement; columns: Array<[keyof ToolRow, Column]> } {
    const columns = Object.entries(getTableColumns(tools)) as Array<[keyof ToolRow, Column]>;
    const names = columns.map(([, column]) => `"${column.name}"`).join(", ");
    const statement = this.db.$client.prepare(
      `insert into tools (${names}) values (${columns.map(() => "?").join(", ")}) on conflict do nothing`,
    );
    return { statement, columns };
  }

  /** `rows` without those of a source being imported. */
  private visible(rows: ToolRow[]): ToolRow[] {
    return this.importing.size ? rows.filter((row) => row.sourceId === null || !this.importing.has(row.sourceId)) : rows;
  }

  async upsertDefinitions(rows: ToolRow[]): Promise<ToolRow[]> {
    return this.upsertDefinitionsNow(rows);
  }

  /** upsertDefinitions, committed before it returns (the registry's built-ins at start-up on SQLite). */
  upsertDefinitionsNow(rows: ToolRow[]): ToolRow[] {
    if (!rows.length) return [];
    return this.db.transaction((tx) => {
      const stored: ToolRow[] = [];
      for (let i = 0; i < rows.length; i += INSERT_CHUNK)
        stored.push(
          ...tx
            .insert(tools)
            .values(rows.slice(i, i + INSERT_CHUNK))
            .onConflictDoUpdate({ target: tools.name, set: definitionFromExcluded })
            .returning()
            .all(),
        );
      return stored;
    });
  }

  async updateSettings(name: string, change: ToolSettingsChange, actor?: string): Promise<ToolSettingsUpdate | undefined> {
    return this.db.transaction(
      (tx) => {
        const before = this.statements.byName.get({ name });
        if (!before) return undefined;
        const update = { before, after: withSettings(before, change) };
        this.statements.updateSettings.run({ ...settingsColumns(update.after), updatedAt: update.after.updatedAt, name });
        if (actor)
          tx.insert(toolEvents)
            .values(settingsEvent(name, actor, update))
            .run();
        return update;
      },
      { behavior: "immediate" },
    );
  }

  async delete(name: string): Promise<boolean> {
    return this.statements.deleteByName.run({ name }).changes > 0;
  }

  async deleteBySource(sourceId: string): Promise<string[]> {
    return this.statements.deleteBySource.all({ sourceId }).map((row) => row.name);
  }

  async replaceSource(sourceId: string, rows: ToolRow[]): Promise<{ removed: string[]; rows: ToolRow[] }> {
    return this.db.transaction(
      (tx) => {
        const old = this.statements.bySource.all({ sourceId });
        this.statements.deleteBySource.all({ sourceId });
        const next = keepingSettings(rows, old, Date.now());
        this.insertIn(tx, next);
        return { removed: old.map((row) => row.name), rows: next };
      },
      { behavior: "immediate" },
    );
  }

  private insertIn(tx: Parameters<Parameters<Db["transaction"]>[0]>[0], rows: ToolRow[]): void {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK);
      const stored = tx.insert(tools).values(chunk).onConflictDoNothing().returning({ name: tools.name }).all();
      const taken = firstNotStored(chunk, stored);
      if (taken !== undefined) throw new ToolNameTaken(taken);
    }
  }

  async page(filter: ToolRowFilter): Promise<ToolRowPage> {
    return this.pageNow(filter);
  }

  /** page, read before it returns (the registry's synchronous list on SQLite). Throws InvalidCursor. */
  pageNow(filter: ToolRowFilter): ToolRowPage {
    const limit = pageSize(filter.limit, 100, 1000);
    const matches = sqliteToolMatches(toolSearchTerms(filter.text));
    const where = conditions(filter);
    if (this.importing.size) where.push(notIn(tools.sourceId, [...this.importing]));
    if (matches) where.push(matches);
    const select = () => {
      const query = this.db.select(getTableColumns(tools)).from(tools).$dynamic();
      return matches ? withToolSearch(query) : query;
    };

    const total = this.count(where, matches);

    // The exact name, when searched for, leads the first page and is left out of every page's name order.
    const exactName = matches ? filter.text!.trim() : undefined;
    const exact =
      exactName && !filter.cursor
        ? select()
            .where(and(...where, eq(tools.name, exactName)))
            .get()
        : undefined;
    const after = afterAscending(filter.cursor, tools.name);
    const rows = select()
      .where(and(...where, after, exactName ? ne(tools.name, exactName) : undefined))
      .orderBy(asc(tools.name))
      .limit(limit + 1)
      .all();
    return pageLedBy(exact, rows, limit, total);
  }

  /** How many rows `where` matches; a search with no other filter is counted in the index alone. */
  private count(where: SQL[], matches: SQL | undefined): number {
    const n = sql<number>`count(*)`;
    if (matches && where.length === 1)
      return (
        this.db
          .select({ n })
          .from(sql`tools_search`)
          .where(matches)
          .get()?.n ?? 0
      );
    const query = this.db.select({ n }).from(tools).$dynamic();
    return (matches ? withToolSearch(query) : query).where(and(...where)).get()?.n ?? 0;
  }
}

/**
 * On an insert that meets a stored name: the definition columns from the row being inserted; the
 * settings an operator controls and the creation time stay as stored. Shared by both dialects.
 */
export const definitionFromExcluded = Object.fromEntries(
  Object.entries(getTableColumns(tools))
    .filter(([key]) => !SETTINGS_AND_CREATION.has(key))
    .map(([key, column]) => [key, sql.raw(`excluded.${column.name}`)]),
) as Record<string, SQL>;

/** Rows outside the sources `ids` (rows of no source included). */
function notIn(column: typeof tools.sourceId, ids: string[]): SQL {
  return sql`(${column} is null or ${column} not in (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )}))`;
}

/** A value as its column stores it (JSON text, 0/1 for booleans), null as null. */
function encoded(column: Column, value: unknown): unknown {
  return value === null || value === undefined ? null : column.mapToDriverValue(value);
}

/** A turn of the event loop: timers and I/O waiting behind a long write get to run. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function conditions(filter: ToolRowFilter): SQL[] {
  const where: SQL[] = [];
  if (filter.target) where.push(sql`exists (select 1 from json_each(${tools.targets}) where value = ${filter.target})`);
  if (filter.tag) where.push(sql`exists (select 1 from json_each(${tools.tags}) where value = ${filter.tag})`);
  if (filter.sourceId) where.push(eq(tools.sourceId, filter.sourceId));
  if (filter.kind) where.push(eq(tools.kind, filter.kind));
  if (filter.effects) where.push(eq(tools.effects, filter.effects));
  if (filter.enabled !== undefined) where.push(eq(tools.enabled, filter.enabled));
  if (filter.needsApproval !== undefined) {
    const asks = sql`(${tools.approval} in ('always', 'once_per_thread') or (${tools.approval} = 'default' and ${tools.confirm} = 1))`;
    where.push(filter.needsApproval ? asks : sql`not ${asks}`);
  }
  return where;
}
