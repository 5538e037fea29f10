import path from "node:path";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { DomainError } from "../../errors";
import * as schema from "../schema.pg";

/** The drizzle database over PostgreSQL, with the pool under it as `$client`. */
export type PgDb = NodePgDatabase<typeof schema> & { $client: pg.Pool };

export interface PostgresHandle {
  db: PgDb;
  pool: pg.Pool;
  /** Ends every connection of the pool; calling it again does nothing. */
  close(): Promise<void>;
}

/** Raised when the PostgreSQL database at DATABASE_URL cannot be reached, used or migrated. */
export class PostgresOpenError extends DomainError<"database_unavailable"> {
  override readonly name = "PostgresOpenError";
  readonly variable = "DATABASE_URL";
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("database_unavailable", message, options);
  }
}

export interface OpenPostgresOptions {
  /** Folder of generated PostgreSQL migrations; defaults to ./drizzle-pg under the working directory. */
  migrationsFolder?: string;
  /** Connections the pool may hold at once (10 unless given). */
  maxConnections?: number;
  /**
   * How long to wait for a connection, new or from a busy pool (10 s unless given). pg's own
   * default is to wait for ever, which turns an unreachable server or an exhausted pool into a hang.
   */
  connectTimeoutMs?: number;
  /** Shown in pg_stat_activity, to tell the console's connections from others. */
  applicationName?: string;
  /** Hears a connection that failed while nobody was using it (the server restarted, an admin ended it). */
  onConnectionError?: (error: Error) => void;
}

/** The PostgreSQL migrations folder shipped with the project. */
export function defaultPgMigrationsFolder(): string {
  return path.resolve(process.cwd(), "drizzle-pg");
}

/**
 * The advisory lock key that consoles sharing one database take while they migrate it, so that
 * only one applies migrations at a time. A fixed number rather than hashtext('…'): hashtext is
 * internal to PostgreSQL and may change between versions.
 */
export const MIGRATION_LOCK_KEY = 7_361_000;

/**
 * Connect to the PostgreSQL database at `url` (postgres:// or postgresql://), apply pending
 * migrations while holding an advisory lock (so several consoles starting at once take turns), and
 * hand back drizzle over a connection pool. Throws PostgresOpenError naming DATABASE_URL when the
 * URL is not a PostgreSQL URL, the server cannot be reached or refuses the login, or a migration
 * fails; the pool is closed then, and the message never repeats the URL's password.
 */
export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PostgresHandle> {
  const where = describeTarget(url);
  const onConnectionError =
    options.onConnectionError ?? ((error: Error) => console.error(`PostgreSQL connection failed: ${error.message}`));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: options.applicationName ?? "agui-console",
  });
  // An 'error' event nobody listens to ends the process. A connection whose server end goes away
  // emits one on itself, idle or in use, and the pool repeats it for an idle one. So every
  // connection gets a listener that reports, and the pool one that only keeps the process alive.
  // Nothing else is needed: a query that was running rejects on its own, and the pool replaces the
  // connection.
  pool.on("connect", (client) => client.on("error", onConnectionError));
  pool.on("error", () => {});

  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end().catch(() => {});
    throw new PostgresOpenError(`DATABASE_URL: cannot connect to PostgreSQL at ${where}: ${reason(error)}`, { cause: error });
  }
  try {
    await migrateLocked(client, options.migrationsFolder ?? defaultPgMigrationsFolder());
  } catch (error) {
    await pool.end().catch(() => {});
    throw new PostgresOpenError(`DATABASE_URL: cannot prepare the database at ${where}: ${reason(error)}`, { cause: error });
  }

  const db = drizzle({ client: pool, schema });
  let closed: Promise<void> | undefined;
  return { db, pool, close: () => (closed ??= pool.end()) };
}

/**
 * Apply the migrations on `client`, holding the migration lock on that same connection: drizzle's
 * migrator takes no lock of its own, and two consoles creating its bookkeeping table at once fail.
 * A session lock belongs to the connection that took it, so taking and releasing it through the
 * pool could land on two connections and leave it held. The client goes back to the pool after an
 * unlock that worked; otherwise it is closed, which releases the lock with the session.
 */
async function migrateLocked(client: pg.PoolClient, migrationsFolder: string): Promise<void> {
  let unlocked = false;
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle({ client }), { migrationsFolder });
    } finally {
      const answer = await client
        .query<{ unlocked: boolean }>("select pg_advisory_unlock($1) as unlocked", [MIGRATION_LOCK_KEY])
        .catch(() => undefined);
      unlocked = answer?.rows[0]?.unlocked === true;
    }
  } finally {
    client.release(unlocked ? undefined : true);
  }
}

/** Where `url` points, for messages: host, port and database, never the user's password. */
function describeTarget(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PostgresOpenError("DATABASE_URL must be a postgres:// or postgresql:// URL; it could not be read as a URL");
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:")
    throw new PostgresOpenError(`DATABASE_URL must be a postgres:// or postgresql:// URL, not ${parsed.protocol}//`);
  const host = parsed.host || parsed.searchParams.get("host") || "localhost";
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || "(the user's default database)";
  return `${host}/${database}`;
}

function reason(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map(reason).join("; ");
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || (typeof code === "string" ? code : "");
    return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
  }
  return String(error);
}
