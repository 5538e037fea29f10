import fs from "node:fs";
import path from "node:path";
import { ensureDirectory } from "./ensure-directory";

/** How many databases the list remembers: the ones started most recently are kept. */
export const KNOWN_DATABASES_LIMIT = 200;

interface KnownDatabase {
  path: string;
  lastStarted: string;
}

/**
 * The databases a console has started on, by absolute path, kept in one small JSON file in the
 * console's state folder (CONSOLE_STATE_DIR). It lives outside every data folder on purpose: when
 * a data folder is deleted or moved, the record that a database was there survives, so start-up
 * can refuse to put a new empty database in its place. Every start moves its database to the end
 * of the list, and only the KNOWN_DATABASES_LIMIT most recent are kept, so throw-away databases
 * (test runs) cannot grow the file without bound.
 */
export class KnownDatabases {
  readonly file: string;

  constructor(stateDir: string) {
    this.file = path.join(path.resolve(stateDir), "known-databases.json");
  }

  /** Whether a console has started on the database at `dbPath`. An unreadable list knows nothing. */
  has(dbPath: string): boolean {
    const wanted = path.resolve(dbPath);
    return this.read().some((entry) => entry.path === wanted);
  }

  /**
   * Record that a console started on the database at `dbPath`, now. The file is replaced in one
   * rename, so a reader never sees half of it. Throws the file system's error when the state folder
   * cannot be written.
   */
  remember(dbPath: string, now = new Date()): void {
    const wanted = path.resolve(dbPath);
    const entries = [...this.read().filter((entry) => entry.path !== wanted), { path: wanted, lastStarted: now.toISOString() }];
    ensureDirectory(path.dirname(this.file), 0o700);
    const temporary = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify({ databases: entries.slice(-KNOWN_DATABASES_LIMIT) }, null, 2) + "\n", { mode: 0o600 });
    fs.renameSync(temporary, this.file);
  }

  private read(): KnownDatabase[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, "utf8");
    } catch {
      return [];
    }
    try {
      const parsed = JSON.parse(text) as { databases?: unknown };
      return Array.isArray(parsed.databases)
        ? parsed.databases.filter(
            (entry): entry is KnownDatabase => typeof entry?.path === "string" && typeof entry?.lastStarted === "string",
          )
        : [];
    } catch {
      return [];
    }
  }
}
