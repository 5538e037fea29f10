import { eq, lte, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { operatorSessions } from "./schema";

export type SessionRow = typeof operatorSessions.$inferSelect;

/** The operator_sessions table: sessions by the SHA-256 of their cookie, never the cookie itself. */
export class SessionRows {
  private readonly byHash;

  constructor(private readonly db: Db) {
    this.byHash = db
      .select()
      .from(operatorSessions)
      .where(eq(operatorSessions.idHash, sql.placeholder("idHash")))
      .prepare();
  }

  insert(row: Omit<SessionRow, "createdAt" | "updatedAt">): void {
    this.db.insert(operatorSessions).values(row).run();
  }

  /** The session with this hash while it has not expired at `now`. */
  live(idHash: string, now: number): SessionRow | undefined {
    const row = this.byHash.get({ idHash });
    return row && row.expiresAt > now ? row : undefined;
  }

  /** End the session with this hash; returns whether there was one. */
  remove(idHash: string): boolean {
    return this.db.delete(operatorSessions).where(eq(operatorSessions.idHash, idHash)).run().changes > 0;
  }

  /** Forget sessions that expired at or before `now`; returns how many. */
  sweep(now: number): number {
    return this.db.delete(operatorSessions).where(lte(operatorSessions.expiresAt, now)).run().changes;
  }
}
