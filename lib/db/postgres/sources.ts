import { and, asc, count, eq, getTableColumns, isNotNull, ne } from "drizzle-orm";
import type { SourceKind, SourceListing, SourcePatch, SourceRow, SourceRowStore } from "../sources";
import { sources, tools } from "../schema.pg";
import type { PgDb } from "./open";

/** The columns of a SourceListing: every one but the document. */
const { document: _document, ...listingColumns } = getTableColumns(sources);

/** The sources rows on PostgreSQL, the twin of the SQLite SourceRows (one statement per method). */
export class PgSourceRows implements SourceRowStore {
  constructor(private readonly db: PgDb) {}

  async all(): Promise<SourceListing[]> {
    return this.db.select(listingColumns).from(sources).orderBy(asc(sources.createdAt), asc(sources.id));
  }

  async byId(id: string): Promise<SourceListing | undefined> {
    const [row] = await this.db.select(listingColumns).from(sources).where(eq(sources.id, id));
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

  async insert(row: SourceRow): Promise<void> {
    await this.db.insert(sources).values(row);
  }

  async update(id: string, patch: SourcePatch & { updatedAt: number }): Promise<void> {
    await this.db.update(sources).set(patch).where(eq(sources.id, id));
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
    const [row] = await this.db.select({ document: sources.document }).from(sources).where(eq(sources.id, id));
    return row?.document;
  }

  async credentials(id: string): Promise<{ authRef: Record<string, unknown> | null; secret: string | null } | undefined> {
    const [row] = await this.db.select({ authRef: sources.authRef, secret: sources.authSecret }).from(sources).where(eq(sources.id, id));
    return row;
  }
}
