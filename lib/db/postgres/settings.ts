import { eq } from "drizzle-orm";
import type { SettingRow, SettingRowStore } from "../settings";
import { settings } from "../schema.pg";
import type { PgDb } from "./open";

/**
 * The settings rows on PostgreSQL, the twin of the SQLite SettingRows. `insert` is one
 * INSERT … ON CONFLICT DO NOTHING, so of instances inserting one key at once exactly one is told it
 * inserted; `write` is one transaction whose statements all go through its own connection.
 */
export class PgSettingRows implements SettingRowStore {
  constructor(private readonly db: PgDb) {}

  async all(): Promise<SettingRow[]> {
    return this.db.select().from(settings);
  }

  async insert(row: SettingRow): Promise<boolean> {
    const inserted = await this.db
      .insert(settings)
      .values(row)
      .onConflictDoNothing({ target: settings.key })
      .returning({ key: settings.key });
    return inserted.length === 1;
  }

  async write(changes: ReadonlyMap<string, unknown>, by: string, at: number): Promise<SettingRow[]> {
    return this.db.transaction(async (tx) => {
      const written: SettingRow[] = [];
      for (const [key, value] of changes) {
        if (value === null || value === undefined) {
          await tx.delete(settings).where(eq(settings.key, key));
          continue;
        }
        const [row] = await tx
          .insert(settings)
          .values({ key, value, updatedBy: by, createdAt: at, updatedAt: at })
          .onConflictDoUpdate({ target: settings.key, set: { value, updatedBy: by, updatedAt: at } })
          .returning();
        written.push(row!);
      }
      return written;
    });
  }
}
