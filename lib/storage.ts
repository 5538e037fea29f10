import { randomBytes } from "node:crypto";
import os from "node:os";
import type { ApprovalRowStore } from "./db/approvals";
import type { A2ATaskRowStore } from "./db/a2a-tasks";
import type { AgentStateRowStore } from "./db/agent-states";
import { CallResults, type CallResultStore } from "./db/call-results";
import { LocalChangeBus, type ChangeBus } from "./db/change-bus";
import type { DatabaseHandle, Db, StorageFault } from "./db/connection";
import { SqliteGrants, type GrantStore } from "./db/grants";
import type { McpTaskRowStore } from "./db/mcp-tasks";
import { PgA2ATaskRows } from "./db/postgres/a2a-tasks";
import { PgAgentStateRows } from "./db/postgres/agent-states";
import { PgApprovalRows } from "./db/postgres/approvals";
import { PgCallResults } from "./db/postgres/call-results";
import { PgGrants } from "./db/postgres/grants";
import { LeasedPgRunStore } from "./db/postgres/leased-runs";
import { AbandonedRuns, RunLeases } from "./db/postgres/leases";
import { PgMcpTaskRows } from "./db/postgres/mcp-tasks";
import { PgChangeBus } from "./db/postgres/notify";
import { JOB_KEYS, runPeriodically, type PeriodicJob } from "./db/postgres/once";
import { openPostgres } from "./db/postgres/open";
import { PgSessionRows } from "./db/postgres/sessions";
import { PgSettingRows } from "./db/postgres/settings";
import { PgSourceRows } from "./db/postgres/sources";
import { PgTokenRows } from "./db/postgres/tokens";
import { PgToolRows } from "./db/postgres/tools";
import { type RunStore, SqliteRunStore } from "./db/runs";
import type { SessionRowStore } from "./db/sessions";
import { SettingsStore } from "./db/settings";
import { dropUnfinishedImports, type SourceRowStore } from "./db/sources";
import type { TokenRowStore } from "./db/tokens";
import type { Logger } from "./log";
import { ToolRegistry } from "./tools";

/** A periodic job of the console; stopping it waits for a run in progress. */
export type Periodic = (name: keyof typeof JOB_KEYS, everyMs: number, job: () => Promise<unknown>) => PeriodicJob;

/**
 * Where the console keeps everything, on one dialect: the row stores its classes are built on (a
 * SQLite Db where a class builds its own SQLite rows from it), the registry and settings already
 * loaded, the change bus, and how periodic jobs run. SQLite is one process on one file; PostgreSQL
 * is shared by every instance given the same DATABASE_URL.
 */
export interface Storage {
  dialect: "sqlite" | "postgres";
  /** The SQLite database, on SQLite. */
  database?: DatabaseHandle;
  /** This instance's name on the change bus (host, pid and a random part). */
  instance: string;
  approvals: Db | ApprovalRowStore;
  grants: GrantStore;
  callResults: CallResultStore;
  runs: RunStore;
  tokens: Db | TokenRowStore;
  sessions: Db | SessionRowStore;
  agentStates: Db | AgentStateRowStore;
  sources: Db | SourceRowStore;
  mcpTasks: Db | McpTaskRowStore;
  a2aTasks: Db | A2ATaskRowStore;
  registry: ToolRegistry;
  settings: SettingsStore;
  bus: ChangeBus;
  /**
   * Run `job` every `everyMs`. On PostgreSQL at most one instance runs a given job at a time (an
   * advisory lock); an instance that finds it running skips that turn.
   */
  every: Periodic;
  /** Runs left "running" by an instance that stopped are recorded as ended (a start-up pass on SQLite, a sweep on PostgreSQL). */
  endAbandonedRuns(): Promise<string[]>;
  /** What keeps the database from taking writes now, or undefined. Never throws. */
  check(): Promise<StorageFault | undefined>;
  /**
   * Write what waits in memory and let go of the database. On SQLite it is done when this returns
   * (it must work in the exit handler, where no promise settles); on PostgreSQL it goes on after.
   */
  close(): void;
}

function instanceName(): string {
  return `${os.hostname().slice(0, 40)}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/** The stores of a console on the SQLite database `database` (already open and migrated). */
export function sqliteStorage(database: DatabaseHandle, logger: Logger): Storage & { database: DatabaseHandle; callResults: CallResults } {
  const db = database.db;
  // Call records are written a moment behind, in batches: one commit per call was the largest
  // part of a tool call's own cost (npm run bench mcp). A commit costs about 40 µs of CPU besides
  // its records' 4-5 µs each, so a busy console commits at most every CALL_RECORD_COMMIT_MS (npm run
  // bench executor: 16 records a commit, one turn of 16 clients' calls, cost 8.4 µs a record; 256, 3.6).
  const callResults = new CallResults(db, {
    writeBehind: true,
    commitEveryMs: CALL_RECORD_COMMIT_MS,
    onError: (error, records) => logger.error("could not record tool calls", { records, error }),
  });
  const runs = new SqliteRunStore(db, (error, runIds) => logger.error("could not record run events", { runIds, error }));
  const dropped = dropUnfinishedImports(db);
  if (dropped) logger.warn("removed sources whose import was cut short", { sources: dropped });
  const bus = new LocalChangeBus({ onListenerError: (error) => logger.error("a change listener failed", { error }) });
  return {
    dialect: "sqlite",
    database,
    instance: instanceName(),
    approvals: db,
    grants: new SqliteGrants(db),
    callResults,
    runs,
    tokens: db,
    sessions: db,
    agentStates: db,
    sources: db,
    mcpTasks: db,
    a2aTasks: db,
    registry: new ToolRegistry(db),
    settings: new SettingsStore(db),
    bus,
    every: (_name, everyMs, job) => {
      let current: Promise<unknown> = Promise.resolve();
      const timer = setInterval(() => {
        current = job().catch(() => {});
      }, everyMs);
      timer.unref();
      return {
        async stop() {
          clearInterval(timer);
          await current;
        },
      };
    },
    // One process owns the file: every run left running is this process's previous life's.
    endAbandonedRuns: () => runs.closeAbandoned(),
    check: async () => database.check(),
    close: () => {
      // SQLite writes the waiting events within the call, so this also works in the exit handler.
      void runs.flush();
      callResults.flush();
      void bus.close();
      database.close();
    },
  };
}

export interface PostgresStorageOptions {
  migrationsFolder?: string;
  /** How long a running run must be seen without its instance's lease before it is ended (10 s unless given). */
  abandonedGraceMs?: number;
}

/**
 * How often, at most, a busy console commits the call records written behind. A record waits at
 * most this long (a call after a quiet spell is written in the next turn), and a process that dies
 * in that time loses them, as it would lose a call that finished just before.
 */
export const CALL_RECORD_COMMIT_MS = 10;

/** How often every instance looks for runs whose instance stopped (the sweep runs on one at a time). */
const ABANDONED_SWEEP_MS = 2_000;

/**
 * How often every instance looks for sources whose importer died (the sweep runs on one at a time).
 * Such a source only shows as importing and keeps its name from a new import, and a dead importer is rare.
 */
const ABANDONED_IMPORTS_SWEEP_MS = 60_000;

/**
 * The stores of a console on the PostgreSQL database at `url`, shared with every instance given the
 * same URL: migrated (under a lock, so instances starting together take turns), with the change
 * bus listening, this instance's run leases held on their own connection, and the registry and
 * settings loaded. Throws PostgresOpenError naming DATABASE_URL.
 */
export async function postgresStorage(url: string, logger: Logger, options: PostgresStorageOptions = {}): Promise<Storage> {
  const pg = await openPostgres(url, {
    migrationsFolder: options.migrationsFolder,
    onConnectionError: (error) => logger.warn("a PostgreSQL connection failed (it is replaced)", { error: error.message }),
  });
  const opened: Array<() => Promise<unknown>> = [() => pg.close()];
  try {
    const onError = (what: string) => (error: unknown) => logger.error(what, { error });
    const bus = await PgChangeBus.open(url, pg.pool, { onError: onError("the PostgreSQL change bus failed (it reconnects)") });
    opened.push(() => bus.close());
    const leases = await RunLeases.open(url, { onError: onError("the PostgreSQL run lease connection failed (it reconnects)") });
    opened.push(() => leases.close());
    const sourceRows = new PgSourceRows(pg.db, {
      url,
      onHoldError: (error) => logger.warn("an import's PostgreSQL claim connection failed", { error: error.message }),
    });
    // Unlike SQLite's drop at open, this leaves alone the imports other instances are running.
    const dropAbandonedImports = async () => {
      const dropped = await sourceRows.dropAbandonedImports();
      if (dropped.length) logger.warn("removed sources whose import was cut short", { sources: dropped });
    };
    await dropAbandonedImports();
    const registry = await ToolRegistry.open(new PgToolRows(pg.db));
    const settings = await SettingsStore.open(new PgSettingRows(pg.db));
    const abandoned = new AbandonedRuns(pg.pool, { graceMs: options.abandonedGraceMs });
    const every: Periodic = (name, everyMs, job) =>
      runPeriodically(pg.pool, JOB_KEYS[name], everyMs, () => job(), onError(`the periodic job ${name} failed`));
    const sweep = every("abandonedRuns", ABANDONED_SWEEP_MS, async () => {
      const ended = await abandoned.endAbandoned();
      if (ended.length) logger.warn("runs of a console instance that stopped recorded as cancelled", { runs: ended });
    });
    const importSweep = every("abandonedImports", ABANDONED_IMPORTS_SWEEP_MS, dropAbandonedImports);
    const runs = new LeasedPgRunStore(pg.db, leases, (error, runIds) => logger.error("could not record run events", { runIds, error }));
    return {
      dialect: "postgres",
      instance: instanceName(),
      approvals: new PgApprovalRows(pg.db),
      grants: new PgGrants(pg.db),
      callResults: new PgCallResults(pg.db),
      runs,
      tokens: new PgTokenRows(pg.db),
      sessions: new PgSessionRows(pg.db),
      agentStates: new PgAgentStateRows(pg.db),
      sources: sourceRows,
      mcpTasks: new PgMcpTaskRows(pg.db),
      a2aTasks: new PgA2ATaskRows(pg.db),
      registry,
      settings,
      bus,
      every,
      endAbandonedRuns: () => abandoned.endAbandoned(),
      check: async () => {
        try {
          await pg.pool.query("select 1");
          return undefined;
        } catch {
          return { fault: "not_answering", message: "The PostgreSQL database does not answer; check that it runs and DATABASE_URL" };
        }
      },
      close: () => {
        void (async () => {
          await Promise.all([sweep.stop(), importSweep.stop()]);
          await runs.flush();
          for (const close of opened.reverse()) await close().catch(() => {});
        })();
      },
    };
  } catch (error) {
    for (const close of opened.reverse()) await close().catch(() => {});
    throw error;
  }
}
