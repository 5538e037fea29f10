// The change bus over LISTEN/NOTIFY on a real PostgreSQL: two pools stand for two console
// instances on one database, and one test puts the listener in another process.
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { InvalidChangeError, type Change, type ChangeBus } from "@/lib/db/change-bus";
import { DEFAULT_CHANGE_CHANNEL, notifyChange, PgChangeBus } from "@/lib/db/postgres/notify";
import { openPostgres, type PostgresHandle } from "@/lib/db/postgres/open";
import { postgresDatabase } from "../support/postgres";
import { startInstanceProcess, type InstanceProcess } from "../support/postgres-instance";

const database = postgresDatabase();
let a: PostgresHandle;
let b: PostgresHandle;
beforeAll(async () => {
  a = await openPostgres(database.url, { maxConnections: 3 });
  b = await openPostgres(database.url, { maxConnections: 3 });
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

const buses: ChangeBus[] = [];
const children: InstanceProcess[] = [];
afterEach(async () => {
  await Promise.all([...buses.splice(0).map((bus) => bus.close()), ...children.splice(0).map((child) => child.stop())]);
});

async function openBus(handle: PostgresHandle, options: Parameters<typeof PgChangeBus.open>[2] = {}): Promise<PgChangeBus> {
  const bus = await PgChangeBus.open(database.url, handle.pool, { onError: () => {}, ...options });
  buses.push(bus);
  return bus;
}

/** Everything `bus` hears, and a way to wait for one change. */
function record(bus: ChangeBus) {
  const heard: Change[] = [];
  const waiters = new Set<() => void>();
  bus.subscribe((change) => {
    heard.push(change);
    for (const waiter of [...waiters]) waiter();
  });
  const next = (match: (change: Change) => boolean, timeoutMs = 5_000) =>
    new Promise<Change>((resolve, reject) => {
      const check = () => {
        const found = heard.find(match);
        if (!found) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching change in ${timeoutMs} ms; heard ${JSON.stringify(heard)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return { heard, next };
}

const is = (kind: Change["kind"], id?: string) => (change: Change) =>
  change.kind === kind && (id === undefined || ("id" in change && change.id === id));
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

describe("PgChangeBus between two instances", () => {
  it("a change published on B reaches a subscriber on A; median latency of 50 under 50 ms", async () => {
    const busA = await openBus(a);
    const busB = await openBus(b);
    const onA = record(busA);
    const latencies: number[] = [];
    for (let i = 0; i < 50; i++) {
      const sent = performance.now();
      await busB.publish({ kind: "approval", id: `ap_${i}` });
      await onA.next(is("approval", `ap_${i}`));
      latencies.push(performance.now() - sent);
    }
    const mid = median(latencies);
    console.log(
      `PostgreSQL change bus, B to A in one process: median ${mid.toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms over 50`,
    );
    expect(mid).toBeLessThan(50);
    // In the order sent, each once.
    expect(onA.heard.filter(is("approval")).map((change) => (change as { id: string }).id)).toEqual(latencies.map((_, i) => `ap_${i}`));
  });

  it("inside a transaction: delivered only after commit; rolled back: never", async () => {
    const busA = await openBus(a);
    const busB = await openBus(b);
    const onA = record(busA);

    const client = await b.pool.connect();
    try {
      await client.query("begin");
      await busB.publish({ kind: "run", id: "committed" }, client);
      // A marker sent outside the transaction after it arrives first: the one inside is held.
      await busB.publish({ kind: "run", id: "marker-1" });
      await onA.next(is("run", "marker-1"));
      expect(onA.heard).not.toContainEqual({ kind: "run", id: "committed" });
      await client.query("commit");
      await onA.next(is("run", "committed"));

      await client.query("begin");
      await busB.publish({ kind: "run", id: "rolled-back" }, client);
      await client.query("rollback");
    } finally {
      client.release();
    }
    // Through a drizzle transaction too, rolled back by an error.
    await expect(
      b.db.transaction(async (tx) => {
        await busB.publish({ kind: "approval", id: "drizzle-rolled-back" }, tx);
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    await b.db.transaction(async (tx) => busB.publish({ kind: "approval", id: "drizzle-committed" }, tx));
    await onA.next(is("approval", "drizzle-committed"));
    // One session delivers in commit order, so by now anything rolled back would have arrived.
    await busB.publish({ kind: "run", id: "marker-2" });
    await onA.next(is("run", "marker-2"));
    expect(onA.heard).not.toContainEqual({ kind: "run", id: "rolled-back" });
    expect(onA.heard).not.toContainEqual({ kind: "approval", id: "drizzle-rolled-back" });
  });

  it("a killed listener connection reconnects, emits resync, and hears changes again", async () => {
    const busA = await openBus(a, { firstRetryMs: 20 });
    const onA = record(busA);
    const before = busA.listenerPid;
    expect(before).toBeTypeOf("number");
    const { rows } = await b.pool.query<{ ended: boolean }>("select pg_terminate_backend($1) as ended", [before]);
    expect(rows[0]!.ended).toBe(true);
    await onA.next(is("resync"));
    expect(busA.listenerPid).not.toBe(before);
    // LISTEN is back in place on the new connection.
    await notifyChange(b.pool, { kind: "registry" });
    await onA.next(is("registry"));
    expect(onA.heard.filter(is("resync"))).toHaveLength(1);
  });

  it("keeps retrying while the database refuses it, then resyncs", async () => {
    const busA = await openBus(a, { firstRetryMs: 10, maxRetryMs: 50 });
    const onA = record(busA);
    // Refuse new connections for a while: every reconnect attempt in that time fails. The admin
    // work goes through a connection to the server's own database (PostgreSQL refuses to close
    // the one it is connected to).
    const admin = new pg.Client({ connectionString: database.serverUrl });
    admin.on("error", () => {});
    await admin.connect();
    const name = admin.escapeIdentifier(new URL(database.url).pathname.slice(1));
    try {
      await admin.query(`alter database ${name} with allow_connections false`);
      await b.pool.query("select pg_terminate_backend($1)", [busA.listenerPid]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(busA.listenerPid).toBeUndefined();
      expect(onA.heard).toEqual([]);
    } finally {
      await admin.query(`alter database ${name} with allow_connections true`);
      await admin.end();
    }
    await onA.next(is("resync"));
    await notifyChange(b.pool, { kind: "run", id: "after-outage" });
    await onA.next(is("run", "after-outage"));
  });

  it("ignores foreign payloads on its channel, refuses bad changes, and keeps delivering when a subscriber throws", async () => {
    const errors: unknown[] = [];
    const busA = await openBus(a, { onError: (error) => errors.push(error) });
    busA.subscribe(() => {
      throw new Error("subscriber failed");
    });
    const onA = record(busA);
    await b.pool.query("select pg_notify($1, $2)", [DEFAULT_CHANGE_CHANNEL, "not json"]);
    await b.pool.query("select pg_notify($1, $2)", [DEFAULT_CHANGE_CHANNEL, '{"kind":"resync"}']);
    await b.pool.query("select pg_notify($1, $2)", ["another_channel", '{"kind":"registry"}']);
    await expect(busA.publish({ kind: "approval", id: "" })).rejects.toThrow(InvalidChangeError);
    await b.db.execute(sql`select 1`);
    await busA.publish({ kind: "run", id: "good" });
    await onA.next(is("run", "good"));
    expect(onA.heard).toEqual([{ kind: "run", id: "good" }]);
    expect(errors.map((error) => (error as Error).message)).toEqual(["subscriber failed"]);
  });

  it("close() ends the listening connection and refuses later publishes", async () => {
    const busA = await openBus(a);
    const pid = busA.listenerPid;
    await busA.close();
    await busA.close();
    const { rows } = await b.pool.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where pid = $1", [pid]);
    expect(rows[0]!.n).toBe(0);
    await expect(busA.publish({ kind: "registry" })).rejects.toThrow(/closed/);
  });
});

describe("PgChangeBus across processes", () => {
  it("a listener in another process hears changes published here, after commit only, and resyncs when its connection is killed", async () => {
    const child = await startInstanceProcess(database.url);
    children.push(child);
    const busB = await openBus(b);
    const latencies: number[] = [];
    for (let i = 0; i < 50; i++) {
      const sent = performance.timeOrigin + performance.now();
      await busB.publish({ kind: "approval", id: `x_${i}` });
      const { at } = await child.next(is("approval", `x_${i}`));
      latencies.push(at - sent);
    }
    const mid = median(latencies);
    console.log(`PostgreSQL change bus, this process to a child: median ${mid.toFixed(2)} ms over 50`);
    expect(mid).toBeLessThan(50);

    await b.db.transaction(async (tx) => {
      await busB.publish({ kind: "run", id: "in-tx" }, tx);
      await busB.publish({ kind: "run", id: "outside" });
      await child.next(is("run", "outside"));
      expect(child.heard.map((entry) => entry.change)).not.toContainEqual({ kind: "run", id: "in-tx" });
    });
    await child.next(is("run", "in-tx"));

    await b.pool.query("select pg_terminate_backend($1)", [child.listenerPid]);
    await child.next(is("resync"));
    await busB.publish({ kind: "registry" });
    await child.next(is("registry"));
  });
});
