import type pg from "pg";

/**
 * Jobs that consoles sharing one database must not run side by side, each with its own advisory
 * lock key. The keys use PostgreSQL's two-number form (namespace, job), which never collides with
 * the one-number keys such as the migration lock.
 */
export const JOB_LOCK_NAMESPACE = 7_361_001;
export const JOB_KEYS = {
  /** Expiring approvals and MCP/A2A tasks past their time. */
  expirySweep: 1,
  /** Ending the runs of console instances that stopped (./leases.ts). */
  abandonedRuns: 2,
  /** Removing the sources whose importer died mid-import (./sources.ts). */
  abandonedImports: 3,
} as const;

export type JobOutcome<T> = { ran: true; value: T } | { ran: false };

/**
 * Run `job` unless another console (or another caller in this one) is running the job with the
 * same key right now; answer `{ ran: false }` at once in that case instead of waiting.
 *
 * What this promises is "not at the same time", not "once per period": an instance that tries
 * just after another finished runs the job again. That is the right promise for the expiry sweep,
 * for ending abandoned runs and for removing abandoned imports, because each is a single guarded
 * write (`where status = 'pending' and expires_at < now`, `where status = 'running' and …`,
 * `where status = 'importing' and …`): a second pass in the same period finds nothing left to change. A job that must not repeat within a period needs a row
 * recording its last run, updated conditionally (reference/postgres.md §6.1), not this lock.
 *
 * The lock is a session lock, taken and given back on one connection checked out of the pool for
 * the whole job: a session lock belongs to the connection that took it, so an unlock sent through
 * the pool could reach another connection, fail, and leave the lock held for good. If the unlock
 * does not succeed the connection is destroyed rather than returned, which releases the lock with
 * its session. A console that dies mid-job releases it the same way, when its connection closes.
 * The job gets that client and may use it; the job's own error is rethrown after the unlock.
 */
export async function runExclusive<T>(pool: pg.Pool, key: number, job: (client: pg.PoolClient) => Promise<T>): Promise<JobOutcome<T>> {
  const client = await pool.connect();
  let keep = false;
  try {
    const { rows } = await client.query<{ locked: boolean }>("select pg_try_advisory_lock($1, $2) as locked", [JOB_LOCK_NAMESPACE, key]);
    if (rows[0]?.locked !== true) {
      keep = true;
      return { ran: false };
    }
    try {
      return { ran: true, value: await job(client) };
    } finally {
      const answer = await client
        .query<{ unlocked: boolean }>("select pg_advisory_unlock($1, $2) as unlocked", [JOB_LOCK_NAMESPACE, key])
        .catch(() => undefined);
      keep = answer?.rows[0]?.unlocked === true;
    }
  } finally {
    client.release(keep ? undefined : true);
  }
}

export interface PeriodicJob {
  /** Stop scheduling; waits for a run in progress to end. */
  stop(): Promise<void>;
}

/**
 * Every `everyMs`, try to run `job` through runExclusive: across all consoles at most one runs it
 * at a time, and a console that finds it running skips that turn. A failed run goes to `onError`
 * and the schedule goes on. The timer does not keep the process alive.
 */
export function runPeriodically(
  pool: pg.Pool,
  key: number,
  everyMs: number,
  job: (client: pg.PoolClient) => Promise<unknown>,
  onError: (error: unknown) => void = (error) => console.error("periodic job failed:", error),
): PeriodicJob {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    current = runExclusive(pool, key, job)
      .catch(onError)
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(tick, everyMs);
        timer.unref();
      });
  };
  let timer = setTimeout(tick, everyMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
