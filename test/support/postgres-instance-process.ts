// A second "console instance" in its own process, for tests of what crosses processes through
// PostgreSQL. Started with `node --import tsx`; environment:
//   PG_URL   the test database
//   RUN_IDS  comma-separated runs to hold leases on (optional)
//   IMPORTS  comma-separated names of OpenAPI sources whose import it starts and never finishes:
//            each source is written "importing" under the import's claim (optional)
// It writes JSON lines to stdout: first {"ready": true, "listenerPid", "leasePid", "importing"} once
// it listens, holds its leases and has written its importing sources (their ids), then {"change", "at"} for each change heard, `at` being the wall clock in
// ms (performance.timeOrigin + performance.now(), the same clock as the parent's). It stops when
// its stdin closes; the tests that play a crash kill it instead.
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { RunLeases } from "../../lib/db/postgres/leases";
import { PgChangeBus } from "../../lib/db/postgres/notify";
import { PgSourceRows } from "../../lib/db/postgres/sources";
import * as schema from "../../lib/db/schema.pg";
import { SourceStore } from "../../lib/db/sources";

const url = process.env.PG_URL ?? "";
if (!url) throw new Error("PG_URL is required");
const write = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

async function main(): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => {});
  const bus = await PgChangeBus.open(url, pool, { applicationName: "test-child-listener", onError: () => {} });
  bus.subscribe((change) => write({ change, at: performance.timeOrigin + performance.now() }));
  const leases = await RunLeases.open(url, { applicationName: "test-child-leases", onError: () => {} });
  for (const id of (process.env.RUN_IDS ?? "").split(",").filter(Boolean)) await leases.hold(id);
  const sources = new SourceStore(new PgSourceRows(drizzle({ client: pool, schema }), { url, onHoldError: () => {} }));
  const importing: string[] = [];
  for (const name of (process.env.IMPORTS ?? "").split(",").filter(Boolean)) {
    importing.push(
      await new Promise<string>((started, failed) => {
        sources
          .createImported({ kind: "openapi", name, location: "pasted" }, (source) => {
            started(source.id);
            return new Promise<never>(() => {});
          })
          .catch(failed);
      }),
    );
  }
  write({ ready: true, listenerPid: bus.listenerPid, leasePid: leases.leasePid, importing });

  process.stdin.resume();
  process.stdin.on("end", () => {
    void Promise.all([bus.close(), leases.close(), pool.end()]).then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
