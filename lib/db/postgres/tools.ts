import { and, asc, count, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import { afterAscending, pageSize } from "../paging";
import { sources, tools, toolEvents } from "../schema.pg";
import { pgToolMatches, toolSearchTerms } from "../tool-search";
import {
  definitionFromExcluded,
  firstNotStored,
  INSERT_CHUNK,
  keepingSettings,
  pageLedBy,
  settingsEvent,
  SourceNotImporting,
  ToolNameTaken,
  withSettings,
  type ToolRow,
  type ToolRowFilter,
  type ToolRowPage,
  type ToolRowStore,
  type ToolSettingsChange,
  type ToolSettingsUpdate,
} from "../tools";
import type { PgDb } from "./open";
import { importLockKey } from "./sources";

type Tx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

/**
 * The tools table and its audit trail on PostgreSQL, the twin of ToolRows. Several instances write
 * it at once: inserts of a stored name are refused through `on conflict do nothing` (no error
 * aborts the transaction first), definitions are upserted with `on conflict do update` in name
 * order (so two instances upserting the same tools wait for each other instead of deadlocking), and
 * a settings change locks its row before it reads the settings it keeps.
 */
export class PgToolRows implements ToolRowStore {
  constructor(private readonly db: PgDb) {}

  async all(): Promise<ToolRow[]> {
    return this.db.select().from(tools);
  }

  async byNames(names: readonly string[]): Promise<ToolRow[]> {
    if (!names.length) return [];
    return this.db
      .select()
      .from(tools)
      .where(inArray(tools.name, [...names]));
  }

  async insertMany(rows: ToolRow[]): Promise<void> {
    if (!rows.length) return;
    await this.db.transaction((tx) => insertIn(tx, rows));
  }

  /**
   * insertImported on PostgreSQL: one transaction on a connection of its own (no other request's
   * statement joins it), awaiting each chunk, so the event loop turns between chunks anyway. It
   * holds the source's import lock from its first statement to its commit, so no sweep of
   * abandoned imports removes the source meanwhile (./sources.ts).
   */
  async insertImported(sourceId: string, rows: ToolRow[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock_shared(${importLockKey(sourceId)})`);
      const [source] = await tx.select({ status: sources.status }).from(sources).where(eq(sources.id, sourceId));
      if (source?.status !== "importing") throw new SourceNotImporting(sourceId);
      await insertIn(tx, rows);
      await tx.update(sources).set({ status: "ok", updatedAt: Date.now() }).where(eq(sources.id, sourceId));
    });
  }

  async upsertDefinitions(rows: ToolRow[]): Promise<ToolRow[]> {
    if (!rows.length) return [];
    const ordered = [...rows].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return this.db.transaction(async (tx) => {
      const stored: ToolRow[] = [];
      for (let i = 0; i < ordered.length; i += INSERT_CHUNK)
        stored.push(
          ...(await tx
            .insert(tools)
            .values(ordered.slice(i, i + INSERT_CHUNK))
            .onConflictDoUpdate({ target: tools.name, set: definitionFromExcluded })
            .returning()),
        );
      return stored;
    });
  }

  async updateSettings(name: string, change: ToolSettingsChange, actor?: string): Promise<ToolSettingsUpdate | undefined> {
    return this.db.transaction(async (tx) => {
      const [before] = await tx.select().from(tools).where(eq(tools.name, name)).for("update");
      if (!before) return undefined;
      const after = withSettings(before, change);
      const [stored] = await tx
        .update(tools)
        .set({
          enabled: after.enabled,
          approval: after.approval,
          timeoutMs: after.timeoutMs,
          retries: after.retries,
          targets: after.targets,
          updatedAt: after.updatedAt,
        })
        .where(eq(tools.name, name))
        .returning();
      const update = { before, after: stored! };
      if (actor) await tx.insert(toolEvents).values(settingsEvent(name, actor, update));
      return update;
    });
  }

  async delete(name: string): Promise<boolean> {
    const gone = await this.db.delete(tools).where(eq(tools.name, name)).returning({ name: tools.name });
    return gone.length > 0;
  }

  async deleteBySource(sourceId: string): Promise<string[]> {
    const gone = await this.db.delete(tools).where(eq(tools.sourceId, sourceId)).returning({ name: tools.name });
    return gone.map((row) => row.name);
  }

  async replaceSource(sourceId: string, rows: ToolRow[]): Promise<{ removed: string[]; rows: ToolRow[] }> {
    return this.db.transaction(async (tx) => {
      // Two instances refreshing one source take turns: the second then replaces what the first
      // wrote instead of meeting its names as taken.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`tools-source:${sourceId}`}, 0))`);
      const old = await tx.delete(tools).where(eq(tools.sourceId, sourceId)).returning();
      const next = keepingSettings(rows, old, Date.now());
      await insertIn(tx, next);
      return { removed: old.map((row) => row.name), rows: next };
    });
  }

  async page(filter: ToolRowFilter): Promise<ToolRowPage> {
    const limit = pageSize(filter.limit, 100, 1000);
    const matches = pgToolMatches(toolSearchTerms(filter.text));
    const where = conditions(filter);
    if (matches) where.push(matches);
    const [counted] = await this.db
      .select({ n: count() })
      .from(tools)
      .where(and(...where));
    // The exact name, when searched for, leads the first page and is left out of every page's name order.
    const exactName = matches ? filter.text!.trim() : undefined;
    const [exact] =
      exactName && !filter.cursor
        ? await this.db
            .select()
            .from(tools)
            .where(and(...where, eq(tools.name, exactName)))
        : [];
    const rows = await this.db
      .select()
      .from(tools)
      .where(and(...where, afterAscending(filter.cursor, tools.name), exactName ? ne(tools.name, exactName) : undefined))
      .orderBy(asc(tools.name))
      .limit(limit + 1);
    return pageLedBy(exact, rows, limit, counted?.n ?? 0);
  }
}

/** The twin of ToolRows' filter conditions: jsonb containment for targets and tags, booleans as such. */
function conditions(filter: ToolRowFilter): SQL[] {
  const where: SQL[] = [];
  if (filter.target) where.push(sql`${tools.targets} ? ${filter.target}`);
  if (filter.tag) where.push(sql`${tools.tags} ? ${filter.tag}`);
  if (filter.sourceId) where.push(eq(tools.sourceId, filter.sourceId));
  if (filter.kind) where.push(eq(tools.kind, filter.kind));
  if (filter.effects) where.push(eq(tools.effects, filter.effects));
  if (filter.enabled !== undefined) where.push(eq(tools.enabled, filter.enabled));
  if (filter.needsApproval !== undefined) {
    const asks = sql`(${tools.approval} in ('always', 'once_per_thread') or (${tools.approval} = 'default' and ${tools.confirm}))`;
    where.push(filter.needsApproval ? asks : sql`not ${asks}`);
  }
  return where;
}

async function insertIn(tx: Tx, rows: ToolRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK);
    const stored = await tx.insert(tools).values(chunk).onConflictDoNothing().returning({ name: tools.name });
    const taken = firstNotStored(chunk, stored);
    // Thrown inside the transaction, so what it wrote before is rolled back.
    if (taken !== undefined) throw new ToolNameTaken(taken);
  }
}
