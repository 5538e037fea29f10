import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { DomainError } from "../errors";
import * as schema from "./schema";

/** The drizzle database, with the better-sqlite3 connection under it as `$client`. */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface DatabaseHandle {
  db: Db;
  sqlite: Database.Database;
  path: string;
  /** Throws when the database does not answer a trivial query. */
  ping(): void;
  close(): void;
}

/** Raised when the database file cannot be opened, created or migrated. */
export class DatabaseOpenError extends DomainError<"database_unavailable"> {
  override readonly name = "DatabaseOpenError";
  readonly variable = "CONSOLE_DB";
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("database_unavailable", message, options);
  }
}

export interface OpenDatabaseOptions {
  /** Folder of generated migrations; defaults to ./drizzle under the working directory. */
  migrationsFolder?: string;
  busyTimeoutMs?: number;
}

/** The migrations folder shipped with the project. */
export function defaultMigrationsFolder(): string {
  return path.resolve(process.cwd(), "drizzle");
}

/**
 * Open (creating when missing) the SQLite file at `file` with WAL, busy_timeout and foreign keys
 * on, and apply pending migrations. ":memory:" opens a private in-memory database.
 * Throws DatabaseOpenError naming CONSOLE_DB when the path is unusable.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): DatabaseHandle {
  const inMemory = file === ":memory:";
  const resolved = inMemory ? file : path.resolve(file);
  let sqlite: Database.Database;
  try {
    if (!inMemory) ensureDirectory(path.dirname(resolved));
    sqlite = new Database(resolved);
  } catch (error) {
    throw new DatabaseOpenError(`CONSOLE_DB: cannot open the database at ${resolved}: ${reason(error)}`, { cause: error });
  }
  try {
    sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    if (!inMemory) sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
    sqlite.pragma("foreign_keys = ON");
    const db = drizzle(sqlite, { schema });
    migrate(db, { migrationsFolder: options.migrationsFolder ?? defaultMigrationsFolder() });
    const ping = sqlite.prepare("select 1");
    return { db, sqlite, path: resolved, ping: () => void ping.get(), close: () => sqlite.close() };
  } catch (error) {
    sqlite.close();
    throw new DatabaseOpenError(`CONSOLE_DB: cannot prepare the database at ${resolved}: ${reason(error)}`, { cause: error });
  }
}

/**
 * Create `dir` and its missing parents one level at a time. Node 20's recursive mkdirSync loops
 * forever where mkdir answers ENOENT for a parent that exists (under /proc, say).
 */
function ensureDirectory(dir: string): void {
  const missing: string[] = [];
  for (let current = dir; !fs.existsSync(current); current = path.dirname(current)) {
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const folder of missing) {
    try {
      fs.mkdirSync(folder);
    } catch (error) {
      if (!((error as NodeJS.ErrnoException).code === "EEXIST" && fs.statSync(folder).isDirectory())) throw error;
    }
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
