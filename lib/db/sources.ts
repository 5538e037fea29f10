import { randomBytes } from "node:crypto";
import { and, asc, eq, ne, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { sourceDocuments, sources, tools } from "./schema";
import { packText, unpackText, type StoredText } from "./stored-text";

export type SourceKind = (typeof sources.$inferSelect)["kind"];
export type SourceStatus = (typeof sources.$inferSelect)["status"];

/** A source as every listing shows it: the credential's kind and place, never the secret. */
export interface SourceSummary {
  id: string;
  kind: SourceKind;
  name: string;
  location: string;
  auth: Record<string, unknown> | null;
  hasSecret: boolean;
  options: Record<string, unknown>;
  status: SourceStatus;
  statusMessage: string | null;
  lastRefreshAt: number | null;
  toolCount: number;
  createdAt: number;
  updatedAt: number;
}

export interface NewSource {
  kind: SourceKind;
  name: string;
  location: string;
  authRef?: Record<string, unknown> | null;
  authSecret?: string | null;
  options?: Record<string, unknown>;
  document?: string | null;
}

/** An import's claim that it is alive (SourceRowStore.holdImport). */
export interface ImportHold {
  /** Give the claim up. Never rejects; releasing twice does nothing. */
  release(): Promise<void>;
}

/** A source's row. Its document (megabytes, at times) is in source_documents, read only by `document`. */
export type SourceRow = typeof sources.$inferSelect;

/** What an update may change; a `document` replaces the stored one (null removes it). */
export type SourcePatch = Partial<Pick<SourceRow, "name" | "status" | "statusMessage" | "lastRefreshAt" | "options">> & {
  document?: string | null;
};

/**
 * What the source store needs from its rows, whatever the database. SourceRows (SQLite, below) and
 * PgSourceRows (./postgres/sources) implement it.
 */
export interface SourceRowStore {
  /** Every row, oldest first (then by id). */
  all(): Promise<SourceRow[]>;
  byId(id: string): Promise<SourceRow | undefined>;
  /** How many tools each source has (sources without tools are absent). */
  toolCounts(): Promise<Map<string, number>>;
  toolCount(id: string): Promise<number>;
  /** Insert the row, and its document when there is one, in one transaction. */
  insert(row: SourceRow, document: string | null): Promise<void>;
  /** Apply the patch, its document included, in one transaction; nothing for an unknown id. */
  update(id: string, patch: SourcePatch & { updatedAt: number }): Promise<void>;
  /**
   * Set the source of this kind "refreshing" in one statement; resolves with its row, or undefined
   * when there is none (a source still importing is none yet).
   */
  markRefreshing(id: string, kind: SourceKind, at: number): Promise<SourceRow | undefined>;
  /** Delete the row (its tools go with it); resolves with whether it existed. */
  delete(id: string): Promise<boolean>;
  /** The source's document: null when it has none, undefined when there is no such source. */
  document(id: string): Promise<string | null | undefined>;
  credentials(id: string): Promise<{ authRef: Record<string, unknown> | null; secret: string | null } | undefined>;
  /**
   * Claim that the import of the source `id` is under way in this process, until released: taken
   * before the row is written, so no source is ever seen importing without its claim. While it is
   * held, no sweep of unfinished imports removes the source. Rejects with the store's error when
   * the claim cannot be taken (nothing is written then).
   */
  holdImport(id: string): Promise<ImportHold>;
}

/**
 * Delete the sources whose import never finished (the process stopped during it), with their
 * tools; resolves with how many. Only for SQLite at open: one process serves the file, so no
 * import of another can be under way. Written in one transaction.
 */
export function dropUnfinishedImports(db: Db): number {
  // Their tools go with them (tools.source_id cascades).
  return db.delete(sources).where(eq(sources.status, "importing")).run().changes;
}

/** The sources rows on SQLite. Each method's work runs, committed, before its promise is returned. */
export class SourceRows implements SourceRowStore {
  /** The last write queued by inOrder; never rejects. */
  private lastWrite: Promise<void> = Promise.resolve();

  constructor(private readonly db: Db) {}

  /** Every source with its tool count, read at once (a synchronous start-up on SQLite). */
  listNow(): SourceSummary[] {
    const counts = this.toolCountsNow();
    return this.allNow().map((row) => summary(row, counts.get(row.id) ?? 0));
  }

  async all(): Promise<SourceRow[]> {
    return this.allNow();
  }

  private allNow(): SourceRow[] {
    return this.db.select().from(sources).orderBy(asc(sources.createdAt), asc(sources.id)).all();
  }

  async byId(id: string): Promise<SourceRow | undefined> {
    return this.db.select().from(sources).where(eq(sources.id, id)).get();
  }

  async toolCounts(): Promise<Map<string, number>> {
    return this.toolCountsNow();
  }

  private toolCountsNow(): Map<string, number> {
    const rows = this.db
      .select({ id: tools.sourceId, n: sql<number>`count(*)` })
      .from(tools)
      .groupBy(tools.sourceId)
      .all();
    return new Map(rows.filter((r) => r.id).map((r) => [r.id!, r.n]));
  }

  async toolCount(id: string): Promise<number> {
    return (
      this.db
        .select({ n: sql<number>`count(*)` })
        .from(tools)
        .where(eq(tools.sourceId, id))
        .get()?.n ?? 0
    );
  }

  async insert(row: SourceRow, document: string | null): Promise<void> {
    return this.inOrder(document, (stored) =>
      this.db.transaction((tx) => {
        tx.insert(sources).values(row).run();
        if (stored != null)
          tx.insert(sourceDocuments)
            .values(documentRow(row.id, stored, row.createdAt, row.updatedAt))
            .run();
      }),
    );
  }

  async update(id: string, { document, ...patch }: SourcePatch & { updatedAt: number }): Promise<void> {
    return this.inOrder(document, (stored) =>
      this.db.transaction((tx) => {
        if (!tx.update(sources).set(patch).where(eq(sources.id, id)).run().changes || stored === undefined) return;
        if (stored === null) tx.delete(sourceDocuments).where(eq(sourceDocuments.sourceId, id)).run();
        else
          tx.insert(sourceDocuments)
            .values(documentRow(id, stored, patch.updatedAt))
            .onConflictDoUpdate({ target: sourceDocuments.sourceId, set: { document: stored, updatedAt: patch.updatedAt } })
            .run();
      }),
    );
  }

  /**
   * Run `write` with the document in its stored form (packText, which may take a few milliseconds
   * off the event loop) once every write called before it has run: compressions end in any order,
   * the rows are written in the order the calls were made.
   */
  private inOrder(document: string | null | undefined, write: (stored: StoredText | null | undefined) => void): Promise<void> {
    const stored = typeof document === "string" ? packText(document) : document;
    const written = this.lastWrite.then(() => stored).then(write);
    this.lastWrite = written.catch(() => {});
    return written;
  }

  async markRefreshing(id: string, kind: SourceKind, at: number): Promise<SourceRow | undefined> {
    return this.db
      .update(sources)
      .set({ status: "refreshing", updatedAt: at })
      .where(and(eq(sources.id, id), eq(sources.kind, kind), ne(sources.status, "importing")))
      .returning()
      .get();
  }

  async delete(id: string): Promise<boolean> {
    return this.db.delete(sources).where(eq(sources.id, id)).run().changes > 0;
  }

  async document(id: string): Promise<string | null | undefined> {
    const stored = this.db
      .select({ document: sourceDocuments.document })
      .from(sources)
      .leftJoin(sourceDocuments, eq(sourceDocuments.sourceId, sources.id))
      .where(eq(sources.id, id))
      .get()?.document;
    return stored == null ? stored : unpackText(stored);
  }

  async credentials(id: string): Promise<{ authRef: Record<string, unknown> | null; secret: string | null } | undefined> {
    return this.db.select({ authRef: sources.authRef, secret: sources.authSecret }).from(sources).where(eq(sources.id, id)).get();
  }

  /** Nothing to hold: this process alone serves the file, and dropUnfinishedImports runs at open only. */
  async holdImport(): Promise<ImportHold> {
    return { release: async () => {} };
  }
}

/** The sources table: imported documents, servers and agents. Secrets go in and out only through `credentials`. */
export class SourceStore {
  private readonly rows: SourceRowStore;

  /** Over a SQLite database (its SourceRows), or over any implementation of the rows. */
  constructor(rows: Db | SourceRowStore) {
    this.rows = isRowStore(rows) ? rows : new SourceRows(rows);
  }

  /** Every source, oldest first, with its tool count. */
  async list(): Promise<SourceSummary[]> {
    const [counts, rows] = await Promise.all([this.rows.toolCounts(), this.rows.all()]);
    return rows.map((row) => summary(row, counts.get(row.id) ?? 0));
  }

  async get(id: string): Promise<SourceSummary | undefined> {
    const row = await this.rows.byId(id);
    if (!row) return undefined;
    return summary(row, await this.rows.toolCount(id));
  }

  /** Store a new source (status "ok", refreshed now) and resolve with its summary. */
  async create(input: NewSource): Promise<SourceSummary> {
    const row = newRow(input, "ok");
    await this.rows.insert(row, input.document ?? null);
    return (await this.get(row.id))!;
  }

  /**
   * Store a new source with status "importing" and run `importTools` on it, which writes its tools
   * and marks it "ok" (ToolRegistry.importSource); resolve with what `importTools` resolves with.
   * All or nothing: when `importTools` rejects, the source is deleted (its tools go with it) and
   * the error rethrown. The import is claimed as alive (SourceRowStore.holdImport) from before the
   * row is written until this settles, so only a source whose importer has died can be swept.
   * Rejects with the store's error when the claim or the row cannot be written (nothing is left).
   */
  async createImported<T>(input: NewSource, importTools: (source: SourceSummary) => Promise<T>): Promise<T> {
    const row = newRow(input, "importing");
    const hold = await this.rows.holdImport(row.id);
    try {
      await this.rows.insert(row, input.document ?? null);
      try {
        // As written: no tools yet, and nothing else changes the row of an import under way.
        return await importTools(summary(row, 0));
      } catch (error) {
        await this.rows.delete(row.id);
        throw error;
      }
    } finally {
      await hold.release();
    }
  }

  /** The stored document or card text, for a refresh or a rebuild: null when the source has none, undefined when there is no such source. */
  document(id: string): Promise<string | null | undefined> {
    return this.rows.document(id);
  }

  /** The raw row, secret included: for the code that makes the calls, never for a listing or a log. */
  credentials(id: string): Promise<{ authRef: Record<string, unknown> | null; secret: string | null } | undefined> {
    return this.rows.credentials(id);
  }

  update(id: string, patch: SourcePatch): Promise<void> {
    return this.rows.update(id, { ...patch, updatedAt: Date.now() });
  }

  /**
   * Mark the source of this kind as refreshing (on SQLite within this call) and resolve with it as
   * it is then; undefined when there is no such source of that kind.
   */
  async startRefresh(id: string, kind: SourceKind): Promise<SourceSummary | undefined> {
    const row = await this.rows.markRefreshing(id, kind, Date.now());
    return row && summary(row, await this.rows.toolCount(id));
  }

  /** Delete the row; its tools go with it (foreign key cascade). Resolves with whether it existed. */
  delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }
}

function newRow(input: NewSource, status: "ok" | "importing"): SourceRow {
  const now = Date.now();
  return {
    id: `src_${randomBytes(8).toString("hex")}`,
    kind: input.kind,
    name: input.name,
    location: input.location,
    authRef: input.authRef ?? null,
    authSecret: input.authSecret ?? null,
    options: input.options ?? {},
    status,
    statusMessage: null,
    lastRefreshAt: now,
    createdAt: now,
    updatedAt: now,
  };
}

/** A source_documents row: a source's document, written at `createdAt` (and last changed at `updatedAt`). */
export function documentRow<D extends StoredText>(sourceId: string, document: D, createdAt: number, updatedAt = createdAt) {
  return { sourceId, document, createdAt, updatedAt };
}

function isRowStore(value: Db | SourceRowStore): value is SourceRowStore {
  return typeof (value as Partial<SourceRowStore>).toolCounts === "function";
}

function summary(row: SourceRow, toolCount: number): SourceSummary {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    location: row.location,
    auth: row.authRef ?? null,
    hasSecret: Boolean(row.authSecret),
    options: row.options,
    status: row.status,
    statusMessage: row.statusMessage ?? null,
    lastRefreshAt: row.lastRefreshAt ?? null,
    toolCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
