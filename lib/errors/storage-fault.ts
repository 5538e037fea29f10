import { DomainError } from "./domain-error";

/**
 * What a caller is told when the storage engine refuses a statement for a reason that lies in the
 * machine, not in the request: SQLite's primary result code (the part of `code` before any
 * extended suffix, e.g. SQLITE_READONLY from SQLITE_READONLY_DBMOVED) to a message. Nothing here
 * names a path or a statement; the full error goes to the server log.
 */
const STORAGE_FAULTS: Record<string, string> = {
  SQLITE_READONLY: "The database is read-only for the console: the operator must restore write access to its file and folder",
  SQLITE_BUSY: "The database is locked by another process; try again in a moment",
  SQLITE_LOCKED: "The database is locked by another process; try again in a moment",
  SQLITE_IOERR: "The database could not be read or written (a disk error); the operator must check the server's storage",
  SQLITE_FULL: "The database could not be written: the disk is full",
  SQLITE_CANTOPEN: "The database file could not be opened; the operator must check the server's storage",
  SQLITE_CORRUPT: "The database file is damaged; the operator must restore it",
  SQLITE_NOTADB: "The database file is damaged; the operator must restore it",
};

/**
 * The database_unavailable error (503) for an error raised by the storage engine because the
 * database cannot be used right now (read-only, locked by another process, a disk error, a
 * damaged file), looking through `cause` for the driver's error under a query builder's wrapper;
 * undefined for anything else, which stays a programming error.
 */
export function storageFaultOf(error: unknown): DomainError<"database_unavailable"> | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++, current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    const message = STORAGE_FAULTS[/^SQLITE_[A-Z]+/.exec(code)?.[0] ?? ""];
    if (message) return new DomainError("database_unavailable", message, { cause: error });
  }
  return undefined;
}
