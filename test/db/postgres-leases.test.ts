// Run leases on a real PostgreSQL: each pool (or child process) stands for one console instance.
// An instance that dies leaves its running runs to be ended by another; the runs of live
// instances, and of one whose connection only blinked, are left alone.
import { inArray } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Change } from "@/lib/db/change-bus";
import { ABANDONED_RUN_ERROR, AbandonedRuns, RunLeases, RunLeaseTakenError } from "@/lib/db/postgres/leases";
import { PgChangeBus } from "@/lib/db/postgres/notify";
import { runs, threads } from "@/lib/db/schema.pg";
import { postgresDatabase, postgresPool } from "../support/postgres";
import { startInstanceProcess, type InstanceProcess } from "../support/postgres-instance";

const database = postgresDatabase();
const a = postgresPool(database);
const b = postgresPool(database);
beforeAll(async () => {
  await a.db.insert(threads).values({ id: "t1", agent: "demo", principal: "local", createdAt: 1, updatedAt: 1 });
});

const closing: Array<{ close(): Promise<void> }> = [];
const children: InstanceProcess[] = [];
afterEach(async () => {
  await Promise.all([...closing.splice(0).map((item) => item.close()), ...children.splice(0).map((child) => child.stop())]);
  // Each test starts with no running run, whatever the one before left.
  await a.pool.query("update runs set status = 'finished' where status = 'running'");
});

async function leases(options: Parameters<typeof RunLeases.open>[1] = {}): Promise<RunLeases> {
  const opened = await RunLeases.open(database.url, { onError: () => {}, ...options });
  closing.push(opened);
  return opened;
}

let next = 0;
/** Fresh run ids, written as running runs of thread t1. */
async function runningRuns(count: number, status: "running" | "finished" = "running"): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `run_${++next}`);
  await a.db.insert(runs).values(
    ids.map((id) => ({
      id,
      threadId: "t1",
      agent: "demo",
      principal: "local",
      status,
      startedAt: Date.now(),
      createdAt: 1,
      updatedAt: 1,
    })),
  );
  return ids;
}

async function statusOf(ids: string[]): Promise<Record<string, { status: string; error: string | null; finishedAt: number | null }>> {
  const rows = await a.db.select().from(runs).where(inArray(runs.id, ids));
  return Object.fromEntries(rows.map((row) => [row.id, { status: row.status, error: row.error, finishedAt: row.finishedAt }]));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ending the runs of a dead instance", () => {
  it("A's lease connection is terminated while it runs: B ends A's runs, and only those", async () => {
    const [r1, r2, mine, mine2, other] = [...(await runningRuns(4)), ...(await runningRuns(1, "finished"))];
    // A never comes back: its reconnect is far off, as for a process that died.
    const onA = await leases({ firstRetryMs: 600_000 });
    const onB = await leases();
    await onA.hold(r1!);
    await onA.hold(r2!);
    await onB.hold(mine!);
    await onB.hold(mine2!);

    const bus = await PgChangeBus.open(database.url, b.pool, { onError: () => {} });
    closing.push(bus);
    const heard: Change[] = [];
    bus.subscribe((change) => heard.push(change));

    const sweeper = new AbandonedRuns(b.pool, { graceMs: 0 });
    expect(await sweeper.endAbandoned()).toEqual([]);

    const { rows } = await b.pool.query<{ ended: boolean }>("select pg_terminate_backend($1) as ended", [onA.leasePid]);
    expect(rows[0]!.ended).toBe(true);
    // The server lets go of the session's locks as the backend exits, a moment later.
    let ended: string[] = [];
    for (let tries = 0; tries < 100 && ended.length === 0; tries++) {
      ended = await sweeper.endAbandoned();
      if (ended.length === 0) await sleep(20);
    }
    expect(ended.sort()).toEqual([r1, r2].sort());

    const after = await statusOf([r1!, r2!, mine!, mine2!, other!]);
    expect(after[r1!]).toMatchObject({ status: "cancelled", error: ABANDONED_RUN_ERROR });
    expect(after[r2!]!.finishedAt).toBeGreaterThan(Date.now() - 60_000);
    expect(after[mine!]!.status).toBe("running");
    expect(after[mine2!]!.status).toBe("running");
    expect(after[other!]!.status).toBe("finished");
    // Each ended run is announced, after the ending transaction commits.
    const announced = () => heard.flatMap((change) => (change.kind === "run" ? [change.id] : []));
    for (let tries = 0; tries < 100 && announced().length < 2; tries++) await sleep(20);
    expect(announced().sort()).toEqual([r1, r2].sort());
    // A second sweep finds nothing left to do.
    expect(await sweeper.endAbandoned()).toEqual([]);
    await onB.release(mine!);
    await onB.release(mine2!);
  });

  it("a console process killed mid-run: the other instance marks its run ended", async () => {
    const [theirs, mine] = await runningRuns(2);
    const onB = await leases();
    await onB.hold(mine!);
    const child = await startInstanceProcess(database.url, [theirs!]);
    children.push(child);
    const sweeper = new AbandonedRuns(b.pool, { graceMs: 0 });
    expect(await sweeper.endAbandoned()).toEqual([]);

    await child.kill();
    // Its backend may already have gone with the socket; terminating it is then a no-op.
    await b.pool.query("select pg_terminate_backend($1)", [child.leasePid]);
    let ended: string[] = [];
    for (let tries = 0; tries < 50 && ended.length === 0; tries++) {
      ended = await sweeper.endAbandoned();
      if (ended.length === 0) await sleep(20);
    }
    expect(ended).toEqual([theirs]);
    expect((await statusOf([theirs!, mine!]))[mine!]!.status).toBe("running");
    await onB.release(mine!);
  });

  it("a lease connection that only blinked is back before the grace ends: nothing is ended", async () => {
    const [run] = await runningRuns(1);
    // A reconnects 400 ms after the loss: time for a sweep to see the run unheld.
    const onA = await leases({ firstRetryMs: 400 });
    await onA.hold(run!);
    const first = onA.leasePid;
    let clock = 0;
    const sweeper = new AbandonedRuns(b.pool, { graceMs: 1_000, now: () => clock });
    await b.pool.query("select pg_terminate_backend($1)", [first]);
    // Seen unheld, but not for long enough.
    for (let tries = 0; tries < 50 && sweeper.suspected().length === 0; tries++) {
      expect(await sweeper.endAbandoned()).toEqual([]);
      if (sweeper.suspected().length === 0) await sleep(5);
    }
    expect(sweeper.suspected()).toEqual([run]);
    for (let tries = 0; tries < 100 && (onA.leasePid === undefined || onA.leasePid === first); tries++) await sleep(20);
    expect(onA.leasePid).not.toBe(first);
    clock = 5_000;
    expect(await sweeper.endAbandoned()).toEqual([]);
    expect(sweeper.suspected()).toEqual([]);
    expect((await statusOf([run!]))[run!]!.status).toBe("running");
    expect(onA.runIds()).toEqual([run]);
    await onA.release(run!);
  });

  it("ends a run unheld for the whole grace, not before", async () => {
    const [run] = await runningRuns(1); // nobody holds it
    let clock = 0;
    const sweeper = new AbandonedRuns(b.pool, { graceMs: 1_000, now: () => clock });
    expect(await sweeper.endAbandoned()).toEqual([]);
    clock = 999;
    expect(await sweeper.endAbandoned()).toEqual([]);
    clock = 1_000;
    expect(await sweeper.endAbandoned()).toEqual([run]);
  });

  it("an instance back after its runs were ended is told which, and drops their leases", async () => {
    const [lostRun, keptRun] = await runningRuns(2);
    const lost: string[][] = [];
    const onA = await leases({ firstRetryMs: 300, onLost: (ids) => lost.push(ids) });
    await onA.hold(lostRun!);
    await onA.hold(keptRun!);
    await b.pool.query("select pg_terminate_backend($1)", [onA.leasePid]);
    await sleep(50);
    // Only lostRun is ended meanwhile (as another sweep would): keptRun stays running.
    await b.pool.query("update runs set status = 'cancelled' where id = $1", [lostRun]);
    for (let tries = 0; tries < 100 && lost.length === 0; tries++) await sleep(20);
    expect(lost).toEqual([[lostRun]]);
    expect(onA.runIds()).toEqual([keptRun]);
    // The kept run's lease was taken back: a sweep leaves it alone.
    expect(await new AbandonedRuns(b.pool, { graceMs: 0 }).endAbandoned()).toEqual([]);
    await onA.release(keptRun!);
  });

  it("an instance back after another took its run's lease is told it lost that run", async () => {
    const [run] = await runningRuns(1);
    const lost: string[][] = [];
    const onA = await leases({ firstRetryMs: 300, onLost: (ids) => lost.push(ids) });
    const onB = await leases();
    await onA.hold(run!);
    await b.pool.query("select pg_terminate_backend($1)", [onA.leasePid]);
    // B takes the run over as soon as A's session is gone.
    for (let tries = 0; tries < 50; tries++) {
      const taken = await onB.hold(run!).then(
        () => true,
        () => false,
      );
      if (taken) break;
      await sleep(10);
    }
    expect(onB.runIds()).toEqual([run]);
    for (let tries = 0; tries < 100 && lost.length === 0; tries++) await sleep(20);
    expect(lost).toEqual([[run]]);
    expect(onA.runIds()).toEqual([]);
    expect((await statusOf([run!]))[run!]!.status).toBe("running");
    await onB.release(run!);
  });

  it("two sweeps at once end each abandoned run once", async () => {
    const ids = await runningRuns(6);
    const [first, second] = await Promise.all([
      new AbandonedRuns(a.pool, { graceMs: 0 }).endAbandoned(),
      new AbandonedRuns(b.pool, { graceMs: 0 }).endAbandoned(),
    ]);
    expect([...first!, ...second!].sort()).toEqual([...ids].sort());
  });
});

describe("RunLeases", () => {
  it("a run held by one instance cannot be held by another until released; release gives it up", async () => {
    const [run] = await runningRuns(1);
    const onA = await leases();
    const onB = await leases();
    await onA.hold(run!);
    await onA.hold(run!); // twice is one lease
    await expect(onB.hold(run!)).rejects.toThrow(RunLeaseTakenError);
    expect(onB.runIds()).toEqual([]);
    await onA.release(run!);
    await onB.hold(run!);
    expect(onB.runIds()).toEqual([run]);
    await onB.release(run!);
    await onB.release(run!); // not held: nothing
    expect(await new AbandonedRuns(b.pool, { graceMs: 0 }).endAbandoned()).toEqual([run]);
  });

  it("the heartbeat gives up on a lease connection that stops answering, reconnects, and reports the leases it cannot take back", async (context) => {
    const [run] = await runningRuns(1);
    const lost: string[][] = [];
    const onA = await leases({ heartbeatMs: 100, firstRetryMs: 10, onLost: (ids) => lost.push(ids) });
    await onA.hold(run!);
    const frozen = onA.leasePid!;
    // Freeze the server process of that connection: it neither answers nor closes, as over a
    // network that silently dropped it. Only possible when the test server runs on this machine.
    try {
      process.kill(frozen, "SIGSTOP");
    } catch {
      context.skip();
    }
    try {
      for (let tries = 0; tries < 100 && lost.length === 0; tries++) await sleep(20);
      // A new connection is up; the frozen session still holds the lease, so it is reported lost.
      expect(onA.leasePid).toBeTypeOf("number");
      expect(onA.leasePid).not.toBe(frozen);
      expect(lost).toEqual([[run]]);
      expect(onA.runIds()).toEqual([]);
    } finally {
      process.kill(frozen, "SIGCONT");
      await b.pool.query("select pg_terminate_backend($1)", [frozen]);
    }
  });
});
