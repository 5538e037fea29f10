import { and, asc, count, eq, inArray, isNotNull, ne, sql, type SQL } from "drizzle-orm";
import pg from "pg";
import { documentRow, type ImportHold, type SourceKind, type SourcePatch, type SourceRow, type SourceRowStore } from "../sources";
import { sourceDocuments, sources, tools } from "../schema.pg";
import type { PgDb } from "./open";

// Which imports are alive, with no column for it.
//
// A source is "importing" from its row's commit until insertImported's transaction commits its
// tools with status "ok". Several instances share the table, so a source left importing by a
// process that died cannot be told from one whose import runs on another instance by its row.
// Its import's advisory lock tells them apart; its key is importLockKey(source id), and it is
// held in shared mode by
//   - the importer, on a connection of the import's own (holdImport), from before the row is
//     inserted until the import has committed or deleted the source: the server lets go of it
//     when that process dies, as it ends the session;
//   - insertImported's transaction, from its first statement to its commit (PgToolRows).
// The sweep (dropAbandonedImports) deletes an importing source only in a statement that takes
// that lock exclusively (pg_try_advisory_xact_lock): nobody holds it then, so no process is
// importing the source; and the importer's lock is taken before the row exists, so there is no
// moment when a live import shows a row without a lock. The delete re-reads the status of a row
// changed meanwhile (READ COMMITTED), so an import that committed just before is left alone.
//
// The one case left is a live importer whose claim connection died (a server restart, an
// administrator): a sweep may then remove the source before insertImported starts, and
// insertImported refuses a source that is no longer importing, so that import fails whole and
// leaves nothing. The importer holds its claim connection for seconds (the document is read and
// planned before the claim), so it needs no heartbeat.

/** What an import's lock key is hashed from, before the source id. */
const IMPORT_LOCK_PREFIX = "source-import:";

/**
 * The advisory lock key of the import of the source whose id is `id`, a value or a column: a
 * 64-bit hash the server computes (the same on every instance). Two ids of one key would make an
 * abandoned import look alive while the other runs: a late sweep, never a wrong one.
 */
export function importLockKey(id: string | typeof sources.id): SQL {
  return sql`hashtextextended(${IMPORT_LOCK_PREFIX}::text || ${id}::text, 0)`;
}

export interface PgSourceRowsOptions {
  /** The database's URL: each import holds its claim on a connection of its own to it. */
  url: string;
  /** Shown in pg_stat_activity for an import's claim connection. */
  applicationName?: string;
  /** Hears an import's claim connection failing during the import (the import goes on; see above). */
  onHoldError?: (error: Error) => void;
}

/** The sources rows on PostgreSQL, the twin of the SQLite SourceRows (one statement per method). */
export class PgSourceRows implements SourceRowStore {
  constructor(
    private readonly db: PgDb,
    private readonly options: PgSourceRowsOptions,
  ) {}

  async all(): Promise<SourceRow[]> {
    return this.db.select().from(sources).orderBy(asc(sources.createdAt), asc(sources.id));
  }

  async byId(id: string): Promise<SourceRow | undefined> {
    const [row] = await this.db.select().from(sources).where(eq(sources.id, id));
    return row;
  }

  async toolCounts(): Promise<Map<string, number>> {
    const rows = await this.db
      .select({ id: tools.sourceId, n: count() })
      .from(tools)
      .where(isNotNull(tools.sourceId))
      .groupBy(tools.sourceId);
    return new Map(rows.map((r) => [r.id!, r.n]));
  }

  async toolCount(id: string): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(tools).where(eq(tools.sourceId, id));
    return row?.n ?? 0;
  }

  async insert(row: SourceRow, document: string | null): Promise<void> {
    if (document === null) {
      await this.db.insert(sources).values(row);
      return;
    }
    await this.db.transaction(async (tx) => {
      await tx.insert(sources).values(row);
      await tx.insert(sourceDocuments).values(documentRow(row.id, document, row.createdAt, row.updatedAt));
    });
  }

  async update(id: string, { document, ...patch }: SourcePatch & { updatedAt: number }): Promise<void> {
    if (document === undefined) {
      await this.db.update(sources).set(patch).where(eq(sources.id, id));
      return;
    }
    await this.db.transaction(async (tx) => {
      const updated = await tx.update(sources).set(patch).where(eq(sources.id, id)).returning({ id: sources.id });
      if (!updated.length) return;
      if (document === null) await tx.delete(sourceDocuments).where(eq(sourceDocuments.sourceId, id));
      else
        await tx
          .insert(sourceDocuments)
          .values(documentRow(id, document, patch.updatedAt))
          .onConflictDoUpdate({ target: sourceDocuments.sourceId, set: { document, updatedAt: patch.updatedAt } });
    });
  }

  async markRefreshing(id: string, kind: SourceKind, at: number): Promise<SourceRow | undefined> {
    const [row] = await this.db
      .update(sources)
      .set({ status: "refreshing", updatedAt: at })
      .where(and(eq(sources.id, id), eq(sources.kind, kind), ne(sources.status, "importing")))
      .returning();
    return row;
  }

  async delete(id: string): Promise<boolean> {
    const removed = await this.db.delete(sources).where(eq(sources.id, id)).returning({ id: sources.id });
    return removed.length > 0;
  }

  async document(id: string): Promise<string | null | undefined> {
    const [row] = await this.db
      .select({ document: sourceDocuments.document })
      .from(sources)
      .leftJoin(sourceDocuments, eq(sourceDocuments.sourceId, sources.id))
      .where(eq(sources.id, id));
    return row?.document;
  }

  async credentials(id: string): Promise<{ authRef: Record<string, unknown> | null; secret: string | null } | undefined> {
    const [row] = await this.db.select({ authRef: sources.authRef, secret: sources.authSecret }).from(sources).where(eq(sources.id, id));
    return row;
  }

  /**
   * Hold the import's lock in shared mode on a new connection outside the pool (an import holding
   * a pooled connection for its whole length could leave its own transaction none to run on);
   * releasing ends that connection, which lets the lock go. Rejects with the driver's error when
   * the connection cannot be made or the lock taken.
   */
  async holdImport(id: string): Promise<ImportHold> {
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: this.options.applicationName ?? "agui-console-import",
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
    });
    // Without a listener a killed backend would end the process.
    client.on("error", (error) => this.options.onHoldError?.(error));
    let released: Promise<void> | undefined;
    const release = () => (released ??= client.end().catch(() => {}));
    try {
      await client.connect();
      // importLockKey's key, in the raw driver's terms.
      await client.query("select pg_advisory_lock_shared(hashtextextended($1::text || $2::text, 0))", [IMPORT_LOCK_PREFIX, id]);
    } catch (error) {
      await release();
      throw error;
    }
    return { release };
  }

  /**
   * Delete every source still importing whose import nobody holds (no importer alive, no
   * insertImported transaction open; see above), its tools with it, and resolve with their ids.
   * Safe to run on every instance at any time: a source whose import is alive is never touched.
   */
  async dropAbandonedImports(): Promise<string[]> {
    const candidates = await this.db.select({ id: sources.id }).from(sources).where(eq(sources.status, "importing"));
    if (!candidates.length) return [];
    // One statement, so the locks it takes are let go at its commit.
    const dropped = await this.db
      .delete(sources)
      .where(
        and(
          inArray(
            sources.id,
            candidates.map((row) => row.id),
          ),
          eq(sources.status, "importing"),
          sql`pg_try_advisory_xact_lock(${importLockKey(sources.id)})`,
        ),
      )
      .returning({ id: sources.id });
    return dropped.map((row) => row.id);
  }
}
