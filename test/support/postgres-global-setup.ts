// Vitest global setup: a PostgreSQL server for the test files that ask for one, started only when
// the first of them asks. Global setup runs before Vitest knows which files need what, so instead
// of a server it offers a small HTTP endpoint on loopback; test/support/postgres.ts calls it from
// a test file's beforeAll. The first call starts the server (DATABASE_URL's when set, else a
// throw-away embedded one); a run with no PostgreSQL test pays for nothing but this endpoint.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import type { TestPostgresServer } from "./postgres-server";

declare module "vitest" {
  export interface ProvidedContext {
    /** GET it for `{ url, prefix }` of the run's PostgreSQL server, or `{ error }` when it could not start. */
    postgresBroker: string;
  }
}

/** The answer of the endpoint. */
export type PostgresBrokerAnswer = { url: string; prefix: string; startMs: number } | { error: string };

export default async function setup(project: TestProject) {
  // Every database the run creates starts with this, so teardown can find what a killed worker left.
  const prefix = `t_${crypto.randomBytes(4).toString("hex")}_`;
  let server: Promise<TestPostgresServer> | undefined;
  const ensureServer = () =>
    (server ??= (async () => {
      const external = process.env.DATABASE_URL?.trim();
      // Loaded here, not at the top: a run that never asks does not even load the package.
      if (!external) return (await import("./postgres-server")).startEmbeddedPostgres();
      return { url: external, startMs: 0, stop: async () => {} };
    })());

  const broker = http.createServer((_request, response) => {
    ensureServer().then(
      ({ url, startMs }) => answer(response, 200, { url, prefix, startMs }),
      (error: unknown) => answer(response, 500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });
  await new Promise<void>((resolve) => broker.listen(0, "127.0.0.1", resolve));
  project.provide("postgresBroker", `http://127.0.0.1:${(broker.address() as AddressInfo).port}/`);

  return async () => {
    await new Promise((resolve) => broker.close(resolve));
    if (!server) return;
    const running = await server.catch(() => undefined);
    if (!running) return;
    await dropLeftovers(running.url, prefix).catch(() => {});
    await running.stop();
  };
}

function answer(response: http.ServerResponse, status: number, body: PostgresBrokerAnswer): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** Drop the databases of this run that a test file did not drop (its worker died). */
async function dropLeftovers(url: string, prefix: string): Promise<void> {
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: url });
  admin.on("error", () => {});
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>("select datname from pg_database where starts_with(datname, $1)", [prefix]);
    for (const { datname } of rows) await admin.query(`drop database if exists ${admin.escapeIdentifier(datname)} with (force)`);
  } finally {
    await admin.end();
  }
}
