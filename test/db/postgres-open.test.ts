import fs from "node:fs";
import path from "node:path";
import { is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { isDomainError } from "@/lib/errors";
import * as pgSchema from "@/lib/db/schema.pg";
import { MIGRATION_LOCK_KEY, openPostgres, PostgresOpenError, type PostgresHandle } from "@/lib/db/postgres/open";
import { freePort } from "../support/postgres-server";
import { postgresDatabase, withDatabase } from "../support/postgres";

const database = postgresDatabase();
const journal = JSON.parse(fs.readFileSync(path.resolve("drizzle-pg/meta/_journal.json"), "utf8")) as { entries: unknown[] };

const opened: PostgresHandle[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((handle) => handle.close()));
});

async function open(url = database.url): Promise<PostgresHandle> {
  const handle = await openPostgres(url, { maxConnections: 4 });
  opened.push(handle);
  return handle;
}

async function migrationRows(handle: PostgresHandle): Promise<Array<{ hash: string; created_at: string }>> {
  const { rows } = await handle.pool.query<{ hash: string; created_at: string }>(
    "select hash, created_at from drizzle.__drizzle_migrations order by id",
  );
  return rows;
}

describe("openPostgres", () => {
  it("migrates a fresh database once when four consoles open it at the same moment", async () => {
    const handles = await Promise.all([open(), open(), open(), open()]);
    const rows = await migrationRows(handles[0]!);
    expect(rows).toHaveLength(journal.entries.length);
    expect(new Set(rows.map((row) => row.hash)).size).toBe(rows.length);
    // Every table of the schema is there, reached through drizzle by each handle.
    const { rows: tables } = await handles[3]!.pool.query<{ n: number }>(
      "select count(*)::int as n from information_schema.tables where table_schema = 'public'",
    );
    expect(tables[0]!.n).toBe(Object.values(pgSchema).filter((value) => is(value, PgTable)).length);
    // The migration lock was given back, not left held by a pooled connection.
    const { rows: locks } = await handles[0]!.pool.query<{ n: number }>(
      "select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = $1",
      [MIGRATION_LOCK_KEY],
    );
    expect(locks[0]!.n).toBe(0);
  });

  it("opening a migrated database again applies nothing and changes no migration row", async () => {
    const first = await open();
    const before = await migrationRows(first);
    expect(before.length).toBeGreaterThan(0);
    await first.close();
    const again = await open();
    expect(await migrationRows(again)).toEqual(before);
  });

  it("close() can be called twice", async () => {
    const handle = await open();
    await handle.close();
    await expect(handle.close()).resolves.toBeUndefined();
  });

  it("refuses a URL that is not a PostgreSQL URL with database_unavailable naming DATABASE_URL, without echoing it", async () => {
    for (const url of ["mysql://user:s3cret@127.0.0.1/db", "./data/console.db", "not a url"]) {
      const error = await openPostgres(url).catch((caught: unknown) => caught);
      expect(error, url).toBeInstanceOf(PostgresOpenError);
      expect(isDomainError(error) && error.kind).toBe("database_unavailable");
      expect((error as Error).message).toMatch(/^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
      expect((error as Error).message).not.toContain("s3cret");
    }
  });

  it("answers an unreachable server with database_unavailable naming DATABASE_URL and where, not the password", async () => {
    const port = await freePort(); // nothing listens there
    const url = `postgres://someone:s3cret@127.0.0.1:${port}/console`;
    const error = await openPostgres(url, { connectTimeoutMs: 2000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PostgresOpenError);
    expect((error as PostgresOpenError).kind).toBe("database_unavailable");
    expect((error as PostgresOpenError).variable).toBe("DATABASE_URL");
    expect((error as Error).message).toMatch(
      new RegExp(`^DATABASE_URL: cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${port}/console: .*ECONNREFUSED`),
    );
    expect((error as Error).message).not.toContain("s3cret");
  });

  it("answers a database that does not exist with the server's reason", async () => {
    const error = await openPostgres(withDatabase(database.serverUrl, "t_never_created")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PostgresOpenError);
    expect((error as Error).message).toMatch(
      /cannot connect to PostgreSQL at 127\.0\.0\.1:\d+\/t_never_created: database "t_never_created" does not exist/,
    );
  });

  it("a connection whose server end is killed, idle in the pool or in use, is reported, not a crash of the process", async () => {
    const heard: string[] = [];
    const handle = await openPostgres(database.url, { onConnectionError: (error) => heard.push(error.message) });
    opened.push(handle);
    const terminate = async (pid: number) => {
      const killer = new pg.Client({ connectionString: database.url });
      killer.on("error", () => {});
      await killer.connect();
      await killer.query("select pg_terminate_backend($1)", [pid]);
      await killer.end();
    };
    const pidOf = async (client: pg.PoolClient) => (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;

    const idle = await handle.pool.connect();
    const idlePid = await pidOf(idle);
    idle.release();
    await terminate(idlePid);
    await expect.poll(() => heard.length).toBeGreaterThan(0);

    const held = await handle.pool.connect();
    try {
      const heardBefore = heard.length;
      await terminate(await pidOf(held));
      await expect.poll(() => heard.length).toBeGreaterThan(heardBefore);
    } finally {
      held.release(true);
    }

    expect(heard.join(" ")).toMatch(/terminat/);
    // The pool goes on with a new connection.
    expect((await handle.pool.query<{ one: number }>("select 1 as one")).rows).toEqual([{ one: 1 }]);
  });
});
