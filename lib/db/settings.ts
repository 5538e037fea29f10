import { eq } from "drizzle-orm";
import { canonicalJson } from "../json/canonical";
import type { Db } from "./connection";
import { settings } from "./schema";

/** One stored setting: its JSON value, who changed it last and when. */
export interface StoredSetting {
  key: string;
  value: unknown;
  updatedBy: string;
  updatedAt: number;
}

/** A row of the settings table. */
export type SettingRow = typeof settings.$inferSelect;

/**
 * What the settings store needs from its rows, whatever the database. SettingRows (SQLite, below)
 * and PgSettingRows (./postgres/settings) implement it.
 */
export interface SettingRowStore {
  /** Every row, in no particular order. */
  all(): Promise<SettingRow[]>;
  /** Insert `row` unless its key is set (by anyone, on any instance); resolves with whether it was inserted. */
  insert(row: SettingRow): Promise<boolean>;
  /**
   * Apply `changes` in one transaction: a value is written (replacing the old one, keeping its
   * creation time), `null` or undefined removes the key. Resolves, once committed, with the rows
   * written as they are stored.
   */
  write(changes: ReadonlyMap<string, unknown>, by: string, at: number): Promise<SettingRow[]>;
}

/** The settings rows on SQLite. Each method's work runs, committed, before its promise is returned. */
export class SettingRows implements SettingRowStore {
  constructor(private readonly db: Db) {}

  /** Every row, read at once (the store's synchronous start-up on SQLite). */
  allNow(): SettingRow[] {
    return this.db.select().from(settings).all();
  }

  async all(): Promise<SettingRow[]> {
    return this.allNow();
  }

  async insert(row: SettingRow): Promise<boolean> {
    return this.db.insert(settings).values(row).onConflictDoNothing({ target: settings.key }).run().changes === 1;
  }

  async write(changes: ReadonlyMap<string, unknown>, by: string, at: number): Promise<SettingRow[]> {
    return this.db.transaction((tx) => {
      const written: SettingRow[] = [];
      for (const [key, value] of changes) {
        if (value === null || value === undefined) {
          tx.delete(settings).where(eq(settings.key, key)).run();
          continue;
        }
        written.push(
          tx
            .insert(settings)
            .values({ key, value, updatedBy: by, createdAt: at, updatedAt: at })
            .onConflictDoUpdate({ target: settings.key, set: { value, updatedBy: by, updatedAt: at } })
            .returning()
            .get(),
        );
      }
      return written;
    });
  }
}

interface Held {
  setting: StoredSetting;
  createdAt: number;
}

/**
 * The console's settings, one JSON value per key (the `settings` table). What a key means and which
 * values it takes is for its reader to check: this store keeps what it is given.
 *
 * Reads are synchronous and served from a copy of every setting, read when the store opens; the
 * values handed out are frozen. A write through this store changes the copy once its rows have
 * committed, so the next read (the next run) sees it without a restart. Another instance's changes
 * reach the copy through `reload()`. Listeners hear the keys whose value changed in the copy.
 */
export class SettingsStore {
  private readonly rows: SettingRowStore;
  private readonly held = new Map<string, Held>();
  private readonly listeners = new Set<(keys: readonly string[], how?: { reloaded: true }) => void>();
  /** Reloads run one after another, so a later one is never overwritten by an earlier one's read. */
  private reloading: Promise<void> = Promise.resolve();
  /** Keys this store wrote while a reload was reading: the reload's rows may predate them. */
  private writtenDuringReload: Set<string> | undefined;

  /** Over a SQLite database, its settings read at once. Use `open` for another SettingRowStore. */
  constructor(db: Db, now?: () => number);
  /** Over rows already read from `rows` (see `open`). */
  constructor(rows: SettingRowStore, now: () => number, loaded: readonly SettingRow[]);
  constructor(
    source: Db | SettingRowStore,
    private readonly now: () => number = Date.now,
    loaded?: readonly SettingRow[],
  ) {
    if (isRowStore(source)) {
      this.rows = source;
      this.replace(loaded ?? []);
    } else {
      const rows = new SettingRows(source);
      this.rows = rows;
      this.replace(rows.allNow());
    }
  }

  /** A store over `rows`, once every setting has been read from them. */
  static async open(rows: SettingRowStore, now: () => number = Date.now): Promise<SettingsStore> {
    return new SettingsStore(rows, now, await rows.all());
  }

  /** The value under `key`, or undefined when it is not set. */
  get(key: string): unknown {
    return this.held.get(key)?.setting.value;
  }

  /** The settings under `keys` that are set (with who set them), in no particular order. */
  many(keys: readonly string[]): StoredSetting[] {
    const found: StoredSetting[] = [];
    for (const key of new Set(keys)) {
      const held = this.held.get(key);
      if (held) found.push(held.setting);
    }
    return found;
  }

  /**
   * At most `limit` settings whose key starts with `prefix`, oldest first (then by key). The prefix
   * must end with "." (a key group such as "agents."); throws otherwise.
   */
  withPrefix(prefix: string, limit: number): StoredSetting[] {
    if (!prefix.endsWith(".")) throw new Error(`A settings prefix ends with ".": got "${prefix}"`);
    return [...this.held.values()]
      .filter((held) => held.setting.key.startsWith(prefix))
      .sort((a, b) => a.createdAt - b.createdAt || (a.setting.key < b.setting.key ? -1 : a.setting.key > b.setting.key ? 1 : 0))
      .slice(0, Math.max(0, limit))
      .map((held) => held.setting);
  }

  /**
   * Write `value` under `key` only if the key is not set, in the database (another instance may
   * have set it). Resolves with whether it was written; the copy has it then.
   */
  async insert(key: string, value: unknown, by: string): Promise<boolean> {
    const at = this.now();
    const row: SettingRow = { key, value, updatedBy: by, createdAt: at, updatedAt: at };
    if (!(await this.rows.insert(row))) return false;
    // The copy keeps its own value: it is frozen, and the caller's object stays the caller's.
    this.changed([key], () => this.hold({ ...row, value: structuredClone(value) }));
    return true;
  }

  /**
   * Apply `changes` in one transaction: a value is written (replacing the old one), `null` removes
   * the key. Either every change is written or none is; the copy changes after the commit.
   */
  async write(changes: ReadonlyMap<string, unknown>, by: string): Promise<void> {
    if (!changes.size) return;
    const written = await this.rows.write(changes, by, this.now());
    this.changed([...changes.keys()], () => {
      for (const [key, value] of changes) if (value === null || value === undefined) this.held.delete(key);
      for (const row of written) this.hold(row);
    });
  }

  /**
   * Read every setting again (another instance changed some) and tell listeners which keys changed.
   * Resolves once the copy holds what the rows held when this call began, or later.
   */
  reload(): Promise<void> {
    const next = this.reloading.then(() => this.reloadNow());
    this.reloading = next.catch(() => {});
    return next;
  }

  /**
   * Hear the keys whose value changed in this store's copy, with `{ reloaded: true }` when reload()
   * read the change (another instance made it); returns the unsubscribe.
   */
  onChange(listener: (keys: readonly string[], how?: { reloaded: true }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async reloadNow(): Promise<void> {
    const written = new Set<string>();
    this.writtenDuringReload = written;
    let rows: SettingRow[];
    try {
      rows = await this.rows.all();
    } finally {
      this.writtenDuringReload = undefined;
    }
    const before = new Map([...this.held].map(([key, held]) => [key, held.setting.value]));
    const kept = new Map([...written].flatMap((key) => (this.held.has(key) ? [[key, this.held.get(key)!] as const] : [])));
    this.replace(rows.filter((row) => !written.has(row.key)));
    for (const [key, held] of kept) this.held.set(key, held);
    // A key this store removed during the read is not brought back by the read.
    for (const key of written) if (!kept.has(key)) this.held.delete(key);
    const keys = new Set([...before.keys(), ...this.held.keys()]);
    const changed = [...keys].filter((key) => canonicalJson(before.get(key)) !== canonicalJson(this.held.get(key)?.setting.value));
    this.tell(changed, { reloaded: true });
  }

  private replace(rows: readonly SettingRow[]): void {
    this.held.clear();
    for (const row of rows) this.hold(row);
  }

  private hold(row: SettingRow): void {
    const setting: StoredSetting = { key: row.key, value: deepFreeze(row.value), updatedBy: row.updatedBy, updatedAt: row.updatedAt };
    this.held.set(row.key, { setting: Object.freeze(setting), createdAt: row.createdAt });
  }

  private changed(keys: readonly string[], apply: () => void): void {
    for (const key of keys) this.writtenDuringReload?.add(key);
    apply();
    this.tell(keys);
  }

  private tell(keys: readonly string[], how?: { reloaded: true }): void {
    if (!keys.length) return;
    for (const listener of this.listeners) {
      try {
        listener(keys, how);
      } catch {
        // A listener's failure must not undo a committed change.
      }
    }
  }
}

function isRowStore(value: Db | SettingRowStore): value is SettingRowStore {
  return typeof (value as Partial<SettingRowStore>).write === "function";
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
