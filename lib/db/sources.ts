import { randomBytes } from "node:crypto";
import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { sources, tools } from "./schema";

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

/** The sources table: imported documents, servers and agents. Secrets go in and out only through `credentials`. */
export class SourceStore {
  constructor(private readonly db: Db) {}

  /** Every source, oldest first, with its tool count. */
  list(): SourceSummary[] {
    const counts = this.toolCounts();
    return this.db
      .select()
      .from(sources)
      .orderBy(asc(sources.createdAt), asc(sources.id))
      .all()
      .map((row) => summary(row, counts.get(row.id) ?? 0));
  }

  get(id: string): SourceSummary | undefined {
    const row = this.db.select().from(sources).where(eq(sources.id, id)).get();
    if (!row) return undefined;
    const count =
      this.db
        .select({ n: sql<number>`count(*)` })
        .from(tools)
        .where(eq(tools.sourceId, id))
        .get()?.n ?? 0;
    return summary(row, count);
  }

  create(input: NewSource): SourceSummary {
    const now = Date.now();
    const id = `src_${randomBytes(8).toString("hex")}`;
    this.db
      .insert(sources)
      .values({
        id,
        kind: input.kind,
        name: input.name,
        location: input.location,
        authRef: input.authRef ?? null,
        authSecret: input.authSecret ?? null,
        options: input.options ?? {},
        document: input.document ?? null,
        status: "ok",
        lastRefreshAt: now,
        createdAt: now,
        updatedAt: now,
      })
      .run();
    return this.get(id)!;
  }

  /** The stored document or card text, for a refresh or a rebuild. */
  document(id: string): string | null | undefined {
    return this.db.select({ document: sources.document }).from(sources).where(eq(sources.id, id)).get()?.document;
  }

  /** The raw row, secret included: for the code that makes the calls, never for a listing or a log. */
  credentials(id: string): { authRef: Record<string, unknown> | null; secret: string | null } | undefined {
    const row = this.db.select({ authRef: sources.authRef, secret: sources.authSecret }).from(sources).where(eq(sources.id, id)).get();
    return row ?? undefined;
  }

  update(
    id: string,
    patch: Partial<Pick<typeof sources.$inferInsert, "name" | "document" | "status" | "statusMessage" | "lastRefreshAt" | "options">>,
  ): void {
    this.db
      .update(sources)
      .set({ ...patch, updatedAt: Date.now() })
      .where(eq(sources.id, id))
      .run();
  }

  /** Delete the row; its tools go with it (foreign key cascade). Returns whether it existed. */
  delete(id: string): boolean {
    return this.db.delete(sources).where(eq(sources.id, id)).run().changes > 0;
  }

  private toolCounts(): Map<string, number> {
    const rows = this.db
      .select({ id: tools.sourceId, n: sql<number>`count(*)` })
      .from(tools)
      .groupBy(tools.sourceId)
      .all();
    return new Map(rows.filter((r) => r.id).map((r) => [r.id!, r.n]));
  }
}

function summary(row: typeof sources.$inferSelect, toolCount: number): SourceSummary {
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
