import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { DomainError } from "../errors";
import { ensureDirectory } from "./ensure-directory";
import type { KnownDatabases } from "./known-databases";
import { WalCheckpointer } from "./wal-checkpointer";
import * as schema from "./schema";

/** The drizzle database, with the better-sqlite3 connection under it as `$client`. */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/**
 * How long a statement waits for a lock another process holds. better-sqlite3 runs statements on
 * the one JavaScript thread, so while SQLite waits the whole console waits: no request, stream or
 * health answer moves. The console never contends with itself (one connection, statements run one
 * at a time); only another process takes the lock (db:migrate, a backup, the sqlite3 shell). A
 * quarter of a second rides out a checkpoint or a short write of theirs; a longer hold makes the
 * waiting write answer 503 (database_unavailable) while everything else keeps being served,
 * instead of freezing every request for seconds.
 */
export const DEFAULT_BUSY_TIMEOUT_MS = 250;

/**
 * The size the write-ahead log is cut back to when it starts over after a checkpoint. SQLite
 * reuses the log from its beginning without shrinking the file, so one burst of writes (an import
 * of thousands of tools, a run of megabytes) would leave a log of up to 64 MB (the checkpoint
 * backstop, wal-checkpointer.ts) on disk for good. Four times the size at which checkpoints move
 * to their worker: a log that steady writing keeps below that is never cut and grown again.
 */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

/** What keeps the database from taking writes, as /api/health names it. */
export type StorageFaultKind = "not_answering" | "file_missing" | "file_replaced" | "not_writable" | "read_only" | "locked" | "io_error";

export interface StorageFault {
  fault: StorageFaultKind;
  /** Says what is wrong and what to do, without the path (health is open to anyone). */
  message: string;
}

export interface DatabaseHandle {
  db: Db;
  sqlite: Database.Database;
  path: string;
  /**
   * Whether the database can take writes: it answers, the file at `path` is still the one opened
   * (same device and inode), the file and its folder are writable, and a write inside a
   * transaction that is rolled back goes through. The first fault found, or undefined. Never throws.
   */
  check(): StorageFault | undefined;
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
  /** DEFAULT_BUSY_TIMEOUT_MS unless given (a one-off script may wait longer). */
  busyTimeoutMs?: number;
  /** The databases consoles have started on: a listed database that is missing is not created again. */
  known?: KnownDatabases;
  /** Create the database even when `known` lists it as missing (CONSOLE_DB_CREATE=1). */
  allowCreate?: boolean;
  /** Hears the checkpoint worker failing (SQLite then checkpoints on the connection itself again). */
  onCheckpointError?: (error: Error) => void;
}

/** The migrations folder shipped with the project. */
export function defaultMigrationsFolder(): string {
  return path.resolve(process.cwd(), "drizzle");
}

/**
 * Open (creating when missing) the SQLite file at `file` with WAL, a short busy_timeout and foreign
 * keys on, check that it takes writes, and apply pending migrations. ":memory:" opens a private
 * in-memory database. Throws DatabaseOpenError naming CONSOLE_DB when the path is unusable, when
 * the database is read-only or locked, and when `known` lists a database that is no longer there
 * (unless `allowCreate`): a deleted data folder must not quietly become an empty console.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): DatabaseHandle {
  const inMemory = file === ":memory:";
  const resolved = inMemory ? file : path.resolve(file);
  if (!inMemory && options.known && !options.allowCreate && !fs.existsSync(resolved) && options.known.has(resolved))
    throw new DatabaseOpenError(
      `CONSOLE_DB: the database at ${resolved} is missing, but a console has used it before (recorded in ${options.known.file}). ` +
        "Its folder may have been deleted or moved: restore it, or point CONSOLE_DB at where it is now. " +
        "To start over with a new, empty database there, set CONSOLE_DB_CREATE=1.",
    );
  let sqlite: Database.Database;
  let opened: fs.Stats | undefined;
  try {
    if (!inMemory) ensureDirectory(path.dirname(resolved));
    sqlite = new Database(resolved);
    if (!inMemory) opened = fs.statSync(resolved);
  } catch (error) {
    throw new DatabaseOpenError(`CONSOLE_DB: cannot open the database at ${resolved}: ${reason(error)}`, { cause: error });
  }
  let fault: StorageFault | undefined;
  try {
    sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
    if (!inMemory) {
      sqlite.pragma("journal_mode = WAL");
      sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    }
    sqlite.pragma("synchronous = NORMAL");
    sqlite.pragma("foreign_keys = ON");
    // SQLite opens a file it may not write read-only without a word: find out now, not at the first write.
    fault = probeWrite(sqlite);
    if (!fault) {
      const db = drizzle(sqlite, { schema });
      migrate(db, { migrationsFolder: options.migrationsFolder ?? defaultMigrationsFolder() });
      const ping = sqlite.prepare("select 1");
      const check = () => checkStorage(sqlite, ping, resolved, opened);
      // Checkpoints move to a worker thread once the log grows (wal-checkpointer.ts).
      const checkpointer = inMemory ? undefined : new WalCheckpointer(sqlite, resolved, { onError: options.onCheckpointError });
      const close = () => {
        checkpointer?.stop();
        sqlite.close();
      };
      return { db, sqlite, path: resolved, check, close };
    }
  } catch (error) {
    sqlite.close();
    throw new DatabaseOpenError(`CONSOLE_DB: cannot prepare the database at ${resolved}: ${reason(error)}`, { cause: error });
  }
  sqlite.close();
  throw new DatabaseOpenError(`CONSOLE_DB: cannot use the database at ${resolved}: ${fault.message}`);
}

/** The checks of DatabaseHandle.check, for the database at `file` (`opened`: its stat when opened; none in memory). */
function checkStorage(
  sqlite: Database.Database,
  ping: Database.Statement,
  file: string,
  opened: fs.Stats | undefined,
): StorageFault | undefined {
  try {
    ping.get();
  } catch {
    return { fault: "not_answering", message: "the database does not answer" };
  }
  if (opened) {
    let now: fs.Stats;
    try {
      now = fs.statSync(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR")
        return {
          fault: "file_missing",
          message:
            "the database file was deleted or moved after the console opened it: what the console writes now is lost when it stops. " +
            "Put the file (or its folder) back, then restart the console",
        };
      return { fault: "io_error", message: "the database file cannot be examined (a disk or permission error)" };
    }
    if (now.dev !== opened.dev || now.ino !== opened.ino)
      return {
        fault: "file_replaced",
        message:
          "the file at the database's path was replaced after the console opened it: the console still writes to the old file. " +
          "Restart the console to use the new one",
      };
    try {
      fs.accessSync(file, fs.constants.W_OK);
      fs.accessSync(path.dirname(file), fs.constants.W_OK);
    } catch {
      return {
        fault: "not_writable",
        message: "the database file or its folder is no longer writable by the console's user: writes will fail. Restore write access",
      };
    }
  }
  return probeWrite(sqlite);
}

/**
 * A write that changes nothing: the schema's user_version written back inside a transaction that
 * is rolled back. It takes the write lock and makes SQLite check that the file is writable for
 * this connection, which `select 1` does not. The fault it meets, or undefined.
 */
function probeWrite(sqlite: Database.Database): StorageFault | undefined {
  try {
    sqlite.exec("begin immediate");
    try {
      const version = Number(sqlite.pragma("user_version", { simple: true }));
      sqlite.pragma(`user_version = ${Number.isSafeInteger(version) ? version : 0}`);
    } finally {
      if (sqlite.inTransaction) sqlite.exec("rollback");
    }
    return undefined;
  } catch (error) {
    const code = String((error as { code?: unknown }).code ?? "");
    if (code.startsWith("SQLITE_READONLY"))
      return {
        fault: "read_only",
        message: "the database is read-only for the console's user: writes fail. Restore write access to its file and folder",
      };
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
      return { fault: "locked", message: "the database is locked by another process: writes fail until it lets go" };
    return { fault: "io_error", message: "the database cannot be written (a disk error, a full disk or a damaged file)" };
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
