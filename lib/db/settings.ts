import { and, asc, eq, gte, inArray, lt } from "drizzle-orm";
import type { Db } from "./connection";
import { settings } from "./schema";

/** Key lists whose statements are kept (readers use a handful; others are compiled per call). */
const MAX_KEY_LISTS = 32;

/** One stored setting: its JSON value, who changed it last and when. */
export interface StoredSetting {
  key: string;
  value: unknown;
  updatedBy: string;
  updatedAt: number;
}

/**
 * The console's settings, one JSON value per key (the `settings` table). What a key means and which
 * values it takes is for its reader to check: this store keeps what it is given. Reads go to SQLite
 * every time (a primary-key lookup), so a change applies to the next run without a restart.
 */
export class SettingsStore {
  private readonly byKeys = new Map<string, ReturnType<SettingsStore["prepareMany"]>>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** The value under `key`, or undefined when it is not set. */
  get(key: string): unknown {
    return this.db.select({ value: settings.value }).from(settings).where(eq(settings.key, key)).get()?.value;
  }

  /** The settings under `keys` that are set (with who set them), in no particular order. */
  many(keys: readonly string[]): StoredSetting[] {
    if (!keys.length) return [];
    // Readers ask for the same few key lists on every run: each list's statement is compiled once.
    const id = keys.join("\n");
    let statement = this.byKeys.get(id);
    if (!statement) {
      statement = this.prepareMany(keys);
      if (this.byKeys.size < MAX_KEY_LISTS) this.byKeys.set(id, statement);
    }
    return statement.all();
  }

  private prepareMany(keys: readonly string[]) {
    return this.db
      .select({ key: settings.key, value: settings.value, updatedBy: settings.updatedBy, updatedAt: settings.updatedAt })
      .from(settings)
      .where(inArray(settings.key, [...keys]))
      .prepare();
  }

  /**
   * At most `limit` settings whose key starts with `prefix`, oldest first. The prefix must end with
   * "." (a key group such as "agents."): the keys are read as the range from it to the same text
   * ending in "/", the character after ".", so no pattern matching is involved.
   */
  withPrefix(prefix: string, limit: number): StoredSetting[] {
    if (!prefix.endsWith(".")) throw new Error(`A settings prefix ends with ".": got "${prefix}"`);
    const end = `${prefix.slice(0, -1)}/`;
    return this.db
      .select({ key: settings.key, value: settings.value, updatedBy: settings.updatedBy, updatedAt: settings.updatedAt })
      .from(settings)
      .where(and(gte(settings.key, prefix), lt(settings.key, end)))
      .orderBy(asc(settings.createdAt), asc(settings.key))
      .limit(limit)
      .all();
  }

  /** Write `value` under `key` only if the key is not set. Returns whether it was written. */
  insert(key: string, value: unknown, by: string): boolean {
    const at = this.now();
    const result = this.db
      .insert(settings)
      .values({ key, value, updatedBy: by, createdAt: at, updatedAt: at })
      .onConflictDoNothing({ target: settings.key })
      .run();
    return result.changes === 1;
  }

  /**
   * Apply `changes` in one transaction: a value is written (replacing the old one), `null` removes
   * the key. Either every change is written or none is.
   */
  write(changes: ReadonlyMap<string, unknown>, by: string): void {
    if (!changes.size) return;
    const at = this.now();
    this.db.transaction((tx) => {
      for (const [key, value] of changes) {
        if (value === null || value === undefined) {
          tx.delete(settings).where(eq(settings.key, key)).run();
          continue;
        }
        tx.insert(settings)
          .values({ key, value, updatedBy: by, createdAt: at, updatedAt: at })
          .onConflictDoUpdate({ target: settings.key, set: { value, updatedBy: by, updatedAt: at } })
          .run();
      }
    });
  }
}
