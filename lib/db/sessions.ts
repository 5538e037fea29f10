import { eq, lte, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { operatorSessions } from "./schema";

export type SessionRow = typeof operatorSessions.$inferSelect;
export type NewSessionRow = Omit<SessionRow, "createdAt" | "updatedAt">;

/**
 * The operator_sessions table: sessions by the SHA-256 of their cookie, never the cookie itself.
 * A session lives only here, so every console instance sharing the database knows it. SessionRows
 * below (SQLite) and PgSessionRows (./postgres/sessions) implement it.
 */
export interface SessionRowStore {
  insert(row: NewSessionRow): Promise<void>;
  /** The session with this hash while it has not expired at `now`. */
  live(idHash: string, now: number): Promise<SessionRow | undefined>;
  /** End the session with this hash; resolves with whether there was one. */
  remove(idHash: string): Promise<boolean>;
  /** Forget sessions that expired at or before `now`; resolves with how many. */
  sweep(now: number): Promise<number>;
}

/** Sessions on SQLite; each method's work runs before its promise is returned. */
export class SessionRows implements SessionRowStore {
  private readonly byHash;

  constructor(private readonly db: Db) {
    this.byHash = db
      .select()
      .from(operatorSessions)
      .where(eq(operatorSessions.idHash, sql.placeholder("idHash")))
      .prepare();
  }

  async insert(row: NewSessionRow): Promise<void> {
    this.db.insert(operatorSessions).values(row).run();
  }

  async live(idHash: string, now: number): Promise<SessionRow | undefined> {
    const row = this.byHash.get({ idHash });
    return row && row.expiresAt > now ? row : undefined;
  }

  async remove(idHash: string): Promise<boolean> {
    return this.db.delete(operatorSessions).where(eq(operatorSessions.idHash, idHash)).run().changes > 0;
  }

  async sweep(now: number): Promise<number> {
    return this.db.delete(operatorSessions).where(lte(operatorSessions.expiresAt, now)).run().changes;
  }
}
