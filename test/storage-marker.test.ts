import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DatabaseOpenError, openDatabase } from "@/lib/db";
import { KNOWN_DATABASES_LIMIT, KnownDatabases } from "@/lib/db/known-databases";
import { tempDir } from "./support/services";

const root = path.resolve(__dirname, "..");

/** A database path inside its own data folder, and a state folder apart from it, both in a fresh temp folder. */
function layout() {
  const base = tempDir();
  return { dataDir: path.join(base, "data"), file: path.join(base, "data", "console.db"), stateDir: path.join(base, "state") };
}

describe("the list of databases consoles have used (the marker)", () => {
  it("remembers absolute paths in a JSON file of the state folder, and nothing is known before", () => {
    const { file, stateDir } = layout();
    const known = new KnownDatabases(stateDir);
    expect(known.file).toBe(path.join(stateDir, "known-databases.json"));
    expect(known.has(file)).toBe(false);
    known.remember(path.relative(process.cwd(), file));
    expect(known.has(file)).toBe(true);
    expect(new KnownDatabases(stateDir).has(file)).toBe(true);
  });

  it(`keeps the ${KNOWN_DATABASES_LIMIT} databases started most recently; a restart moves a database to the end`, () => {
    const { stateDir } = layout();
    const known = new KnownDatabases(stateDir);
    known.remember("/srv/kept/console.db");
    for (let i = 0; i < KNOWN_DATABASES_LIMIT - 1; i++) known.remember(`/tmp/throwaway-${i}/console.db`);
    known.remember("/srv/kept/console.db");
    known.remember("/tmp/one-more/console.db");
    expect(known.has("/srv/kept/console.db")).toBe(true);
    expect(known.has("/tmp/throwaway-0/console.db")).toBe(false);
    expect(known.has("/tmp/throwaway-1/console.db")).toBe(true);
    expect(JSON.parse(fs.readFileSync(known.file, "utf8")).databases).toHaveLength(KNOWN_DATABASES_LIMIT);
  });

  it("an unreadable list knows nothing rather than stopping the console", () => {
    const { stateDir, file } = layout();
    const known = new KnownDatabases(stateDir);
    fs.mkdirSync(stateDir);
    fs.writeFileSync(known.file, "{ not json");
    expect(known.has(file)).toBe(false);
    known.remember(file);
    expect(known.has(file)).toBe(true);
  });
});

describe("openDatabase with the list", () => {
  it("refuses to create a listed database that is missing, names the fix, and creates nothing", () => {
    const { dataDir, file, stateDir } = layout();
    const known = new KnownDatabases(stateDir);
    openDatabase(file, { known }).close();
    known.remember(file);
    fs.rmSync(dataDir, { recursive: true });
    let error: unknown;
    try {
      openDatabase(file, { known });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect((error as Error).message).toBe(
      `CONSOLE_DB: the database at ${file} is missing, but a console has used it before (recorded in ${known.file}). ` +
        "Its folder may have been deleted or moved: restore it, or point CONSOLE_DB at where it is now. " +
        "To start over with a new, empty database there, set CONSOLE_DB_CREATE=1.",
    );
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it("creates it when told to (allowCreate), and a database never listed as usual", () => {
    const { dataDir, file, stateDir } = layout();
    const known = new KnownDatabases(stateDir);
    known.remember(file);
    openDatabase(file, { known, allowCreate: true }).close();
    expect(fs.existsSync(file)).toBe(true);
    const other = path.join(dataDir, "other.db");
    openDatabase(other, { known }).close();
    expect(fs.existsSync(other)).toBe(true);
  });
});

describe("start-up (scripts/prepare.ts) after the data folder was deleted", () => {
  function prepare(env: Record<string, string>) {
    const { CONSOLE_DB: _d, CONSOLE_STATE_DIR: _s, CONSOLE_DB_CREATE: _c, ...inherited } = process.env;
    return spawnSync(process.execPath, ["--import", "tsx", "scripts/prepare.ts"], {
      cwd: root,
      env: { ...inherited, LOG_LEVEL: "silent", ...env },
      encoding: "utf8",
      timeout: 60_000,
    });
  }

  it("refuses to start on a new empty database unless CONSOLE_DB_CREATE=1", () => {
    const { dataDir, file, stateDir } = layout();
    const env = { CONSOLE_DB: file, CONSOLE_STATE_DIR: stateDir };
    const first = prepare(env);
    expect(first.stderr).toBe("");
    expect(first.status).toBe(0);
    expect(new KnownDatabases(stateDir).has(file)).toBe(true);

    fs.rmSync(dataDir, { recursive: true });
    const refused = prepare(env);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `Cannot start: CONSOLE_DB: the database at ${file} is missing, but a console has used it before ` +
        `(recorded in ${path.join(stateDir, "known-databases.json")}). Its folder may have been deleted or moved: ` +
        "restore it, or point CONSOLE_DB at where it is now. To start over with a new, empty database there, set CONSOLE_DB_CREATE=1.",
    );
    expect(fs.existsSync(dataDir)).toBe(false);

    const created = prepare({ ...env, CONSOLE_DB_CREATE: "1" });
    expect(created.stderr).toBe("");
    expect(created.status).toBe(0);
    expect(fs.existsSync(file)).toBe(true);
  });
});
