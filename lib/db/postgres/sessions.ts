import { eq, lte, sql } from "drizzle-orm";
import { operatorSessions } from "../schema.pg";
import type { NewSessionRow, SessionRow, SessionRowStore } from "../sessions";
import type { PgDb } from "./open";

/**
 * Operator sessions on PostgreSQL, the twin of the SQLite SessionRows: a session opened on one
 * console instance is read from the table by every other.
 */
export class PgSessionRows implements SessionRowStore {
  private readonly byHash;

  constructor(private readonly db: PgDb) {
    // On every signed-in page request's path: prepared once per connection (the name is unique in the app).
    this.byHash = db
      .select()
      .from(operatorSessions)
      .where(eq(operatorSessions.idHash, sql.placeholder("idHash")))
      .prepare("operator_sessions_by_hash");
  }

  async insert(row: NewSessionRow): Promise<void> {
    await this.db.insert(operatorSessions).values(row);
  }

  async live(idHash: string, now: number): Promise<SessionRow | undefined> {
    const [row] = await this.byHash.execute({ idHash });
    return row && row.expiresAt > now ? row : undefined;
  }

  async remove(idHash: string): Promise<boolean> {
    const removed = await this.db
      .delete(operatorSessions)
      .where(eq(operatorSessions.idHash, idHash))
      .returning({ idHash: operatorSessions.idHash });
    return removed.length > 0;
  }

  async sweep(now: number): Promise<number> {
    const { rowCount } = await this.db.delete(operatorSessions).where(lte(operatorSessions.expiresAt, now));
    return rowCount ?? 0;
  }
}
