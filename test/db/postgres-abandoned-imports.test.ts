// Sources left "importing" on a shared PostgreSQL: two pools (and a child process) stand for
// console instances. A source whose importer died is removed with its tools, by the sweep or when
// an instance opens; one whose import is alive (its claim held, or its insertImported transaction
// open) is left alone and its import completes; a finished source is never touched.
import { eq, inArray } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PgSourceRows } from "@/lib/db/postgres/sources";
import { PgToolRows } from "@/lib/db/postgres/tools";
import { sources, tools } from "@/lib/db/schema.pg";
import { SourceStore, type SourceSummary } from "@/lib/db/sources";
import { SourceNotImporting, type ToolRow } from "@/lib/db/tools";
import { silentLogger } from "@/lib/log";
import { postgresStorage } from "@/lib/storage";
import { postgresDatabase, postgresPool } from "../support/postgres";
import { toolRow } from "../support/tool-rows";
import { startInstanceProcess, type InstanceProcess } from "../support/postgres-instance";

const database = postgresDatabase();
const a = postgresPool(database);
const b = postgresPool(database);

const children: InstanceProcess[] = [];
const cleanups: Array<() => Promise<unknown>> = [];
beforeEach(async () => {
  await a.pool.query("truncate sources, tools cascade");
});
afterEach(async () => {
  await Promise.all([...children.splice(0).map((child) => child.stop()), ...cleanups.splice(0).map((cleanup) => cleanup())]);
});

/** Instance A's source rows; its import claims show in pg_stat_activity as `applicationName`. */
const rowsOfA = (applicationName = "test-import-claim-a") =>
  new PgSourceRows(a.db, { url: database.url, applicationName, onHoldError: () => {} });
/** Instance B's source rows, whose sweep the tests run. */
const rowsOfB = () => new PgSourceRows(b.db, { url: database.url, onHoldError: () => {} });

const tool = (name: string, sourceId: string) => toolRow(name, { kind: "openapi", sourceId });

/** A row as a process killed mid-import leaves it: the source still importing, with `toolNames` under it. */
async function leftImporting(id: string, toolNames: string[] = []): Promise<void> {
  await a.db.insert(sources).values({ id, kind: "openapi", name: id, location: "pasted", status: "importing" });
  if (toolNames.length) await a.db.insert(tools).values(toolNames.map((name) => tool(name, id)));
}

async function statuses(): Promise<Record<string, string>> {
  const rows = await a.db.select({ id: sources.id, status: sources.status }).from(sources);
  return Object.fromEntries(rows.map((row) => [row.id, row.status]));
}

async function toolNames(): Promise<string[]> {
  return (await a.db.select({ name: tools.name }).from(tools)).map((row) => row.name).sort();
}

/** Resolves when `pass` answers true, polling every 20 ms; rejects after `tries` polls. */
async function until(what: string, pass: () => Promise<boolean>, tries = 100): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await pass()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** Resolves once no connection named `applicationName` is left (its backend exits a moment after the client closes). */
async function claimClosed(applicationName: string): Promise<void> {
  await until(
    `${applicationName} is gone`,
    async () =>
      (await b.pool.query("select 1 from pg_stat_activity where application_name = $1 and datname = current_database()", [applicationName]))
        .rowCount === 0,
  );
}

/** Terminate the backends of the connections named `applicationName`, as when their process dies. */
async function terminate(applicationName: string): Promise<void> {
  const { rows } = await b.pool.query<{ ended: boolean }>(
    "select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = $1 and datname = current_database()",
    [applicationName],
  );
  expect(rows.map((row) => row.ended)).toEqual([true]);
  await claimClosed(applicationName);
}

/** An import on instance A that stops before writing its tools, until `proceed` is called. */
function pausedImport(store: SourceStore, name: string, rows: (sourceId: string) => ToolRow[]) {
  let proceed!: () => void;
  const go = new Promise<void>((resolve) => (proceed = resolve));
  let started!: (source: SourceSummary) => void;
  const source = new Promise<SourceSummary>((resolve) => (started = resolve));
  const toolRows = new PgToolRows(a.db);
  const done = store.createImported({ kind: "openapi", name, location: "pasted" }, async (created) => {
    started(created);
    await go;
    await toolRows.insertImported(created.id, rows(created.id));
    return created.id;
  });
  // Settled by the test; kept from being reported as unhandled meanwhile.
  done.catch(() => {});
  return { source, proceed, done };
}

describe("sources left importing on PostgreSQL", () => {
  it("a source left importing with no importer is removed with its tools; finished sources are never touched", async () => {
    await leftImporting("src_dead", ["dead_a", "dead_b"]);
    await a.db.insert(sources).values([
      { id: "src_ok", kind: "openapi", name: "ok", location: "pasted", status: "ok" },
      { id: "src_error", kind: "openapi", name: "error", location: "pasted", status: "error" },
      { id: "src_refreshing", kind: "mcp", name: "refreshing", location: "stdio:x", status: "refreshing" },
    ]);
    await a.db.insert(tools).values([tool("ok_a", "src_ok"), tool("error_a", "src_error"), tool("refreshing_a", "src_refreshing")]);
    const imported = await new SourceStore(rowsOfA()).createImported(
      { kind: "openapi", name: "done", location: "pasted" },
      async (source) => {
        await new PgToolRows(a.db).insertImported(source.id, [tool("done_a", source.id)]);
        return source.id;
      },
    );

    expect(await rowsOfB().dropAbandonedImports()).toEqual(["src_dead"]);
    expect(await statuses()).toEqual({ src_ok: "ok", src_error: "error", src_refreshing: "refreshing", [imported]: "ok" });
    expect(await toolNames()).toEqual(["done_a", "error_a", "ok_a", "refreshing_a"]);
    expect(await rowsOfB().dropAbandonedImports()).toEqual([]);
  });

  it("a console process killed mid-import: its source is left alone while it lives, and removed once it is gone", async () => {
    const child = await startInstanceProcess(database.url, [], ["Killed", "Stopped"]);
    children.push(child);
    const [killed, stopped] = child.importing;
    expect(await statuses()).toEqual({ [killed!]: "importing", [stopped!]: "importing" });
    const sweeper = rowsOfB();
    expect(await sweeper.dropAbandonedImports()).toEqual([]);

    await child.kill();
    let dropped: string[] = [];
    await until("the sweep removes the killed process's sources", async () => {
      dropped.push(...(await sweeper.dropAbandonedImports()));
      return dropped.length === 2;
    });
    expect(dropped.sort()).toEqual([killed, stopped].sort());
    expect(await statuses()).toEqual({});
    dropped = await sweeper.dropAbandonedImports();
    expect(dropped).toEqual([]);
  });

  it("an import whose importer is alive is left alone by the sweep, then completes", async () => {
    const store = new SourceStore(rowsOfA());
    const paused = pausedImport(store, "Alive", (id) => [tool("alive_a", id), tool("alive_b", id)]);
    const source = await paused.source;
    expect(source.status).toBe("importing");

    expect(await rowsOfB().dropAbandonedImports()).toEqual([]);
    expect(await statuses()).toEqual({ [source.id]: "importing" });

    paused.proceed();
    expect(await paused.done).toBe(source.id);
    expect(await statuses()).toEqual({ [source.id]: "ok" });
    expect(await toolNames()).toEqual(["alive_a", "alive_b"]);
    expect(await rowsOfB().dropAbandonedImports()).toEqual([]);
    // The claim is given up with the import: its connection is closed.
    await claimClosed("test-import-claim-a");
  });

  it("20 imports on A while B sweeps without pause: every import completes and the sweeps remove nothing", async () => {
    const store = new SourceStore(rowsOfA());
    const toolRows = new PgToolRows(a.db);
    const sweeper = rowsOfB();
    let importing = true;
    const dropped: string[] = [];
    let sweeps = 0;
    const sweeping = (async () => {
      while (importing) {
        dropped.push(...(await sweeper.dropAbandonedImports()));
        sweeps += 1;
      }
    })();
    const settled = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        store.createImported({ kind: "openapi", name: `n${i}`, location: "pasted" }, async (source) => {
          await toolRows.insertImported(
            source.id,
            Array.from({ length: 50 }, (_, j) => tool(`many_${i}_${j}`, source.id)),
          );
          return source.id;
        }),
      ),
    );
    importing = false;
    await sweeping;
    expect(sweeps).toBeGreaterThan(1);
    expect(dropped).toEqual([]);
    expect(settled.filter((outcome) => outcome.status === "rejected")).toEqual([]);
    expect(Object.values(await statuses())).toEqual(settled.map(() => "ok"));
    expect(await toolNames()).toHaveLength(20 * 50);
  });

  it("an insertImported transaction open on another connection keeps its source, even once the importer's claim is gone", async () => {
    const store = new SourceStore(rowsOfA("test-import-claim-tx"));
    const paused = pausedImport(store, "In flight", (id) => [tool("flight_a", id), tool("flight_b", id)]);
    const source = await paused.source;

    // Another transaction writes the name flight_b without committing: insertImported's insert of
    // it waits there, its own transaction (and the import's lock in it) open.
    const blocker = await b.pool.connect();
    cleanups.push(async () => blocker.release());
    await blocker.query("begin");
    await blocker.query(
      `insert into tools (name, title, description, input_schema, timeout_ms, targets, tags, kind, digest)
       values ('flight_b', 'x', '', '{}', 1000, '[]', '[]', 'builtin', 'd')`,
    );
    paused.proceed();
    await until(
      "insertImported waits on the uncommitted name",
      async () =>
        (
          await a.pool.query(
            "select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like 'insert into \"tools\"%'",
          )
        ).rowCount === 1,
    );
    await terminate("test-import-claim-tx");

    expect(await rowsOfB().dropAbandonedImports()).toEqual([]);
    await blocker.query("rollback");
    expect(await paused.done).toBe(source.id);
    expect(await statuses()).toEqual({ [source.id]: "ok" });
    expect(await toolNames()).toEqual(["flight_a", "flight_b"]);
    expect(await rowsOfB().dropAbandonedImports()).toEqual([]);
  });

  it("an importer alive whose claim connection died before it wrote: the sweep may take the source, and the import then fails whole", async () => {
    const store = new SourceStore(rowsOfA("test-import-claim-lost"));
    const paused = pausedImport(store, "Lost", (id) => [tool("lost_a", id)]);
    const source = await paused.source;
    await terminate("test-import-claim-lost");

    expect(await rowsOfB().dropAbandonedImports()).toEqual([source.id]);
    paused.proceed();
    await expect(paused.done).rejects.toEqual(new SourceNotImporting(source.id));
    expect(await statuses()).toEqual({});
    expect(await toolNames()).toEqual([]);
  });

  it("a failed import deletes its source and gives up its claim", async () => {
    const store = new SourceStore(rowsOfA("test-import-claim-failed"));
    await a.db.insert(tools).values({ ...tool("taken", "none"), kind: "builtin", sourceId: null });
    const failing = store.createImported({ kind: "openapi", name: "Fails", location: "pasted" }, async (source) => {
      await new PgToolRows(a.db).insertImported(source.id, [tool("fine", source.id), tool("taken", source.id)]);
    });
    await expect(failing).rejects.toMatchObject({ name: "ToolNameTaken", tool: "taken" });
    expect(await statuses()).toEqual({});
    expect(await toolNames()).toEqual(["taken"]);
    await claimClosed("test-import-claim-failed");
  });

  it("an instance opening the database removes the sources left importing, and leaves alone an import running elsewhere", async () => {
    await leftImporting("src_left", ["left_a"]);
    const paused = pausedImport(new SourceStore(rowsOfA()), "Running", (id) => [tool("running_a", id)]);
    const running = await paused.source;

    const storage = await postgresStorage(database.url, silentLogger);
    cleanups.push(async () => storage.close());
    expect(await statuses()).toEqual({ [running.id]: "importing" });
    expect(await toolNames()).toEqual([]);
    expect(storage.registry.get("left_a")).toBeUndefined();

    paused.proceed();
    await paused.done;
    const [row] = await a.db.select({ status: sources.status }).from(sources).where(eq(sources.id, running.id));
    expect(row?.status).toBe("ok");
    expect(
      await a.db
        .select({ name: tools.name })
        .from(tools)
        .where(inArray(tools.sourceId, [running.id])),
    ).toEqual([{ name: "running_a" }]);
  });
});
