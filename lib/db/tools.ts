import { and, asc, eq, getTableColumns, ne, sql, type SQL } from "drizzle-orm";
import type { Db } from "./connection";
import { afterAscending, pageSize, toPage, type Page } from "./paging";
import { tools, toolEvents } from "./schema";
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

/** Writes of the tools table go in chunks: SQLite caps the variables of one statement. */
const INSERT_CHUNK = 200;

/** The tools table and its audit trail (tool_events). */
export class ToolRows {
  private readonly statements;

  constructor(private readonly db: Db) {
    const p = (name: string) => sql.placeholder(name);
    this.statements = {
      all: db.select().from(tools).prepare(),
      deleteByName: db
        .delete(tools)
        .where(eq(tools.name, p("name")))
        .prepare(),
      deleteBySource: db
        .delete(tools)
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

  /** Every row. */
  all(): ToolRow[] {
    return this.statements.all.all();
  }

  /** Insert rows, all or nothing. */
  insertMany(rows: ToolRow[]): void {
    this.db.transaction((tx) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK)
        tx.insert(tools)
          .values(rows.slice(i, i + INSERT_CHUNK))
          .run();
    });
  }

  /** Insert `inserts` and replace the definitions of `updates` (keeping their settings and creation time), in one transaction. */
  upsertDefinitions(inserts: ToolRow[], updates: ToolRow[]): void {
    if (!inserts.length && !updates.length) return;
    this.db.transaction((tx) => {
      for (let i = 0; i < inserts.length; i += INSERT_CHUNK)
        tx.insert(tools)
          .values(inserts.slice(i, i + INSERT_CHUNK))
          .run();
      for (const row of updates) {
        const { name, enabled: _e, approval: _a, timeoutMs: _t, retries: _r, targets: _tg, createdAt: _c, ...definition } = row;
        tx.update(tools).set(definition).where(eq(tools.name, name)).run();
      }
    });
  }

  /**
   * Write a tool's settings, with an audit row when `audit` is given, in one transaction.
   * Returns whether the tool exists.
   */
  updateSettings(name: string, settings: ToolSettingsColumns, audit?: Omit<ToolEventRow, "tool" | "createdAt" | "updatedAt">): boolean {
    return this.db.transaction(
      (tx) => {
        const changed = this.statements.updateSettings.run({ ...settings, name }).changes > 0;
        if (changed && audit)
          tx.insert(toolEvents)
            .values({ ...audit, tool: name, createdAt: settings.updatedAt, updatedAt: settings.updatedAt })
            .run();
        return changed;
      },
      { behavior: "immediate" },
    );
  }

  /** Delete a tool; returns whether it existed. */
  delete(name: string): boolean {
    return this.statements.deleteByName.run({ name }).changes > 0;
  }

  /** Delete every tool of a source; returns how many went. */
  deleteBySource(sourceId: string): number {
    return this.statements.deleteBySource.run({ sourceId }).changes;
  }

  /**
   * A page of rows in name order, filtered, with the count of every row the filter matches. A
   * search whose text is exactly a tool's name lists that tool first, on the first page only.
   * Throws InvalidCursor.
   */
  page(filter: ToolRowFilter): Page<ToolRow> & { total: number } {
    const limit = pageSize(filter.limit, 100, 1000);
    const matches = sqliteToolMatches(toolSearchTerms(filter.text));
    const where = conditions(filter);
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
    // A page holding only the exact name continues from the start of the name order (it skips that name).
    return { ...toPage(exact ? [exact, ...rows] : rows, limit, (row) => [row === exact ? "" : row.name]), total };
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
