import crypto from "node:crypto";
import pg from "pg";
import { openPostgres, type PostgresHandle } from "@/lib/db/postgres/open";
import { afterAll, beforeAll, inject } from "vitest";
import type { PostgresBrokerAnswer } from "./postgres-global-setup";

/** The run's PostgreSQL server (started on the first call of the run), and the prefix of its test databases. */
export async function postgresServer(): Promise<{ url: string; prefix: string; startMs: number }> {
  const response = await fetch(inject("postgresBroker"));
  const body = (await response.json()) as PostgresBrokerAnswer;
  if ("error" in body) throw new Error(body.error);
  return body;
}

/** `url` with its database replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const next = new URL(url);
  next.pathname = `/${database}`;
  return next.toString();
}

/** Run `work` with a connection to the server as its admin user. */
async function asAdmin<T>(serverUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl });
  admin.on("error", () => {});
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * A new, empty database on the run's PostgreSQL server for this test file: created in beforeAll,
 * dropped (with whatever still connects to it) in afterAll. Read `url` inside tests and hooks.
 */
export function postgresDatabase(): { readonly url: string; readonly serverUrl: string } {
  let server: { url: string } | undefined;
  let database: string | undefined;
  beforeAll(async () => {
    const found = await postgresServer();
    const name = `${found.prefix}${crypto.randomBytes(6).toString("hex")}`;
    await asAdmin(found.url, (admin) => admin.query(`create database ${admin.escapeIdentifier(name)}`));
    server = found;
    database = name;
  });
  afterAll(async () => {
    if (!server || !database) return;
    const name = database;
    await asAdmin(server.url, (admin) => admin.query(`drop database if exists ${admin.escapeIdentifier(name)} with (force)`));
  });
  return {
    get url() {
      if (!server || !database) throw new Error("postgresDatabase().url is ready in tests and hooks, after its beforeAll");
      return withDatabase(server.url, database);
    },
    get serverUrl() {
      if (!server) throw new Error("postgresDatabase().serverUrl is ready in tests and hooks, after its beforeAll");
      return server.url;
    },
  };
}

/**
 * A connection pool to `database` standing for one console instance, opened in the enclosing
 * scope's beforeAll (after the database's) and closed in its afterAll. Read its `db` and `pool`
 * inside tests and hooks.
 */
export function postgresPool(database: { readonly url: string }, options: { maxConnections?: number } = {}): PostgresHandle {
  let handle: PostgresHandle | undefined;
  beforeAll(async () => {
    handle = await openPostgres(database.url, { maxConnections: options.maxConnections ?? 4, onConnectionError: () => {} });
  });
  afterAll(async () => {
    await handle?.close();
  });
  const opened = (): PostgresHandle => {
    if (!handle) throw new Error("postgresPool() is open in tests and hooks, after its beforeAll");
    return handle;
  };
  return {
    get db() {
      return opened().db;
    },
    get pool() {
      return opened().pool;
    },
    close: () => opened().close(),
  };
}
