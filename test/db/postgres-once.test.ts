// Jobs that consoles sharing one PostgreSQL must not run side by side (the expiry sweep, ending
// abandoned runs): two pools stand for two instances.
import { describe, expect, it } from "vitest";
import { JOB_LOCK_NAMESPACE, runExclusive, runPeriodically } from "@/lib/db/postgres/once";
import { type PostgresHandle } from "@/lib/db/postgres/open";
import { postgresDatabase, postgresPool } from "../support/postgres";

const database = postgresDatabase();
const a = postgresPool(database);
const b = postgresPool(database);

const KEY = 42;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function jobLocksHeld(): Promise<number> {
  const { rows } = await a.pool.query<{ n: number }>(
    "select count(*)::int as n from pg_locks where locktype = 'advisory' and objsubid = 2 and classid = $1",
    [JOB_LOCK_NAMESPACE],
  );
  return rows[0]!.n;
}

describe("runExclusive", () => {
  it("lets exactly one of two instances run the job at a time, over 20 rounds", async () => {
    let inFlight = 0;
    let most = 0;
    for (let round = 0; round < 20; round++) {
      const ran: string[] = [];
      // The winner keeps the job going until the other instance's attempt has come back, so the
      // two attempts surely overlap the job; the wait is capped so a broken lock fails, not hangs.
      let settled!: () => void;
      const otherSettled = new Promise<void>((resolve) => (settled = resolve));
      let attempts = 0;
      const attempt = (name: string, handle: PostgresHandle) =>
        runExclusive(handle.pool, KEY, async () => {
          ran.push(name);
          most = Math.max(most, ++inFlight);
          await Promise.race([otherSettled, sleep(2_000)]);
          inFlight--;
        }).finally(() => {
          if (++attempts === 1) settled();
        });
      const outcomes = await Promise.all([attempt("A", a), attempt("B", b)]);
      expect(ran, `round ${round}`).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.ran)).toHaveLength(1);
    }
    expect(most).toBe(1);
    expect(await jobLocksHeld()).toBe(0);
  });

  it("gives the lock back when the job throws, and rethrows", async () => {
    await expect(
      runExclusive(a.pool, KEY, async () => {
        throw new Error("sweep failed");
      }),
    ).rejects.toThrow("sweep failed");
    expect(await jobLocksHeld()).toBe(0);
    await expect(runExclusive(b.pool, KEY, async () => "ok")).resolves.toEqual({ ran: true, value: "ok" });
  });

  it("an instance that dies mid-job releases the lock with its connection", async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    let pid!: number;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const onA = runExclusive(a.pool, KEY, async (client) => {
      pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
      started();
      await hold;
    });
    await running;
    expect(await runExclusive(b.pool, KEY, async () => "B")).toEqual({ ran: false });
    await b.pool.query("select pg_terminate_backend($1)", [pid]);
    // The backend lets go of its locks as it exits, a moment after it was told to.
    let outcome = await runExclusive(b.pool, KEY, async () => "B");
    for (let tries = 0; tries < 100 && !outcome.ran; tries++) {
      await sleep(20);
      outcome = await runExclusive(b.pool, KEY, async () => "B");
    }
    expect(outcome).toEqual({ ran: true, value: "B" });
    release();
    // A's job ends normally; its unlock fails on the dead connection, which is thrown away.
    await expect(onA).resolves.toEqual({ ran: true, value: undefined });
    expect(await jobLocksHeld()).toBe(0);
    expect(await runExclusive(a.pool, KEY, async () => "A again")).toEqual({ ran: true, value: "A again" });
  });
});

describe("runPeriodically", () => {
  it("two instances on one schedule never run the job side by side", async () => {
    let inFlight = 0;
    let most = 0;
    let runs = 0;
    const job = async () => {
      runs++;
      most = Math.max(most, ++inFlight);
      await sleep(15);
      inFlight--;
    };
    const jobs = [runPeriodically(a.pool, KEY, 5, job), runPeriodically(b.pool, KEY, 5, job)];
    await sleep(400);
    await Promise.all(jobs.map((job) => job.stop()));
    expect(runs).toBeGreaterThan(3);
    expect(most).toBe(1);
    expect(await jobLocksHeld()).toBe(0);
  });
});
