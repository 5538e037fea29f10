import pg from "pg";
import type { PublishedChange } from "../change-bus";
import { notifyChange, type NotifyTarget } from "./notify";
import { prepared } from "./prepared";

// Which console instance runs which run, with no column for it.
//
// An instance holds one PostgreSQL session advisory lock per run it is running, all on one
// dedicated connection (its "lease connection"). The lock is the lease: it lives exactly as long
// as that connection, so when the instance dies (killed, out of memory, its host gone) the server
// ends the session and every lease of that instance disappears with it. Another instance finds
// the abandoned runs as the running runs whose lock nobody holds: it reads the candidates from
// pg_locks (without disturbing anyone), then ends each one only if it can take that run's lock
// itself for the ending transaction. Runs of live instances are never touched, which a blanket
// `update runs … where status = 'running'` would do on a shared database.
//
// The key of a run's lock is hashtextextended('run:' || id, 0), computed by the server in both
// places (holding and sweeping), so every instance agrees on it. hashtext's values may change
// between PostgreSQL versions, which does not matter here: advisory locks do not survive a server
// restart, let alone an upgrade. Two run ids with the same 64-bit key would make a dead instance's
// run look alive while the other one runs: a late end, never a wrong one.
//
// The heartbeat is a `select 1` on the lease connection every few seconds. The server notices a
// dead client when its socket closes; the heartbeat is what lets an instance notice that its own
// lease connection died (a restart, an administrator, a broken network), so it connects again and
// takes its leases back. Between the loss and the retake, others may see those runs as abandoned;
// `graceMs` below is how long a run must stay unheld before a sweep ends it.

/** The advisory lock key of the run whose id is the SQL expression `idExpr`. */
const lockKey = (idExpr: string) => `hashtextextended('run:' || ${idExpr}, 0)`;
/** True when some session of this database holds the lease of the run whose id is the SQL expression `idExpr`. */
const leaseHeld = (idExpr: string) => `exists (
  select 1 from pg_locks l
   where l.locktype = 'advisory' and l.granted and l.objsubid = 1
     and l.database = (select oid from pg_database where datname = current_database())
     and l.classid::bigint = (${lockKey(idExpr)} >> 32) & 4294967295
     and l.objid::bigint = ${lockKey(idExpr)} & 4294967295)`;
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";
/** Take and give up one run's lease ($1 its id): sent for every run, so prepared (./prepared.ts). */
const HOLD = `select pg_try_advisory_lock(${lockKey("$1::text")}) as locked`;
const RELEASE = `select pg_advisory_unlock(${lockKey("$1::text")})`;

/** Raised by RunLeases.hold when another session already holds the run's lease. */
export class RunLeaseTakenError extends Error {
  override readonly name = "RunLeaseTakenError";
}

export interface RunLeasesOptions {
  applicationName?: string;
  /** How often the lease connection is checked (10 s unless given). */
  heartbeatMs?: number;
  /** Wait before reconnecting, doubled after each failure up to maxRetryMs (100 and 5000 unless given). */
  firstRetryMs?: number;
  maxRetryMs?: number;
  onError?: (error: unknown) => void;
  /**
   * After a reconnect: the runs this instance held that another instance ended meanwhile. Their
   * leases are dropped; the instance should stop those runs.
   */
  onLost?: (runIds: string[]) => void;
}

/** The leases of one console instance on the runs it is running. */
export class RunLeases {
  private readonly held = new Set<string>();
  private readonly onError: (error: unknown) => void;
  private client: pg.Client | undefined;
  private pid: number | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;

  private constructor(
    private readonly url: string,
    private readonly options: RunLeasesOptions,
  ) {
    this.onError = options.onError ?? ((error) => console.error("PostgreSQL run leases:", error instanceof Error ? error.message : error));
  }

  /** Open the lease connection; throws the driver's error when it cannot be made. */
  static async open(url: string, options: RunLeasesOptions = {}): Promise<RunLeases> {
    const leases = new RunLeases(url, options);
    await leases.connect();
    leases.heartbeat = setInterval(() => leases.beat(), options.heartbeatMs ?? 10_000);
    leases.heartbeat.unref();
    return leases;
  }

  /** The server process id of the lease connection while it is up. */
  get leasePid(): number | undefined {
    return this.pid;
  }

  /** The runs this instance holds leases on. */
  runIds(): string[] {
    return [...this.held];
  }

  /**
   * Take the lease of `runId`: call it before the run's row is written, so the run is never seen
   * running without a lease. Holding a run twice is one lease. While the lease connection is down
   * the run is remembered and its lease taken on reconnect. Throws RunLeaseTakenError when
   * another session holds it (the run is running elsewhere).
   */
  async hold(runId: string): Promise<void> {
    if (this.closed) throw new Error("the run leases are closed");
    if (this.held.has(runId)) return;
    this.held.add(runId);
    const client = this.client;
    if (!client) return;
    try {
      const { rows } = await client.query<{ locked: boolean }>(prepared(HOLD, [runId]));
      if (rows[0]?.locked !== true) {
        this.held.delete(runId);
        throw new RunLeaseTakenError(`run ${runId} is held by another console instance`);
      }
    } catch (error) {
      if (error instanceof RunLeaseTakenError) throw error;
      // The lease connection failed under us: the run stays held here, and its lease is taken
      // again when the connection is back.
      this.onError(error);
    }
  }

  /** Give up the lease of `runId` (the run ended here). Releasing a run not held does nothing. */
  async release(runId: string): Promise<void> {
    if (!this.held.delete(runId)) return;
    await this.client?.query(prepared(RELEASE, [runId])).catch((error: unknown) => this.onError(error));
  }

  /** Close the lease connection, which gives up every lease. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.pid = undefined;
    await client?.end().catch(() => {});
  }

  private beat(): void {
    const client = this.client;
    if (!client) return;
    // An answer that fails, or does not come within one period (a connection that silently went
    // away), counts as a lost connection: drop it and connect again. The leases a dead-but-not-yet
    // noticed session still holds cannot be taken back by the new one; they are reported through
    // onLost, and the server frees them when it notices (its TCP keepalive).
    const limit = this.options.heartbeatMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the lease connection did not answer within ${limit} ms`)), limit);
      timer.unref();
    });
    Promise.race([client.query("select 1"), timedOut])
      .catch((error: unknown) => {
        if (this.client !== client) return;
        this.onError(error);
        this.lost(client);
        void client.end().catch(() => {});
      })
      .finally(() => clearTimeout(timer));
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: this.options.applicationName ?? "agui-console-leases",
      keepAlive: true,
    });
    client.on("error", (error) => this.onError(error)); // without it a killed backend crashes the process
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
      const covered = new Set(this.held);
      const lost = await this.retake(client, [...covered]);
      if (this.closed) throw new Error("the run leases were closed while they connected");
      this.client = client;
      this.pid = rows[0]?.pid;
      this.failures = 0;
      // Runs held while this connection was being made were only remembered: take theirs now.
      const added = [...this.held].filter((id) => !covered.has(id));
      if (added.length > 0) lost.push(...(await this.retake(client, added)));
      if (lost.length > 0) this.options.onLost?.(lost);
    } catch (error) {
      client.removeAllListeners("end");
      if (this.client === client) {
        this.client = undefined;
        this.pid = undefined;
      }
      await client.end().catch(() => {});
      throw error;
    }
  }

  /**
   * Take back the leases of the runs still held here; answer the runs whose lease someone else has
   * now (a sweep ending them holds it until it commits) or that are no longer running (another
   * instance ended them while this one was away). The status is read after the lock is taken, in a
   * statement of its own: a sweep that ended the run has committed by then, so its change is seen.
   * A run with no row yet (held before it was written) is kept.
   */
  private async retake(client: pg.Client, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await client.query<{ id: string; locked: boolean }>(
      `select t.run_id as id, pg_try_advisory_lock(${lockKey("t.run_id")}) as locked
         from unnest($1::text[]) as t(run_id)`,
      [ids],
    );
    const locked = rows.filter((row) => row.locked).map((row) => row.id);
    const { rows: ended } = await client.query<{ id: string }>("select id from runs where id = any($1::text[]) and status <> 'running'", [
      locked,
    ]);
    const endedIds = new Set(ended.map((row) => row.id));
    for (const id of endedIds) await client.query(prepared(RELEASE, [id]));
    const kept = new Set(locked.filter((id) => !endedIds.has(id)));
    const lost = ids.filter((id) => !kept.has(id));
    for (const id of lost) this.held.delete(id);
    return lost;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.pid = undefined;
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const wait = Math.min(this.options.maxRetryMs ?? 5000, (this.options.firstRetryMs ?? 100) * 2 ** this.failures);
    this.retryTimer = setTimeout(() => {
      this.connect().catch((error: unknown) => {
        this.failures += 1;
        if (!this.closed) this.onError(error);
        this.scheduleReconnect();
      });
    }, wait);
    this.retryTimer.unref();
  }
}

export interface AbandonedRunsOptions {
  /**
   * How long a running run must be seen without a lease before it is ended (10 s unless given):
   * long enough for an instance whose lease connection broke to reconnect and take it back.
   * 0 ends it at the first sweep that sees it unheld.
   */
  graceMs?: number;
  /** Announce each ended run (`{ kind: "run", id }`) in the ending transaction. Defaults to notifyChange on its channel. */
  announce?: (tx: NotifyTarget, change: PublishedChange) => Promise<void>;
  /** The clock for graceMs (performance.now unless given). */
  now?: () => number;
}

/** The message an abandoned run is ended with. */
export const ABANDONED_RUN_ERROR = "the console instance running it stopped";

/**
 * Finds the runs of console instances that died and marks them ended. Run it through
 * runExclusive(pool, JOB_KEYS.abandonedRuns, …) on every instance every few seconds: its UPDATE is
 * guarded by status = 'running' and by the lease being unheld, so two sweeps never end a run
 * twice nor a live run once, but there is no point in several at once.
 */
export class AbandonedRuns {
  /** Runs seen without a lease, with when they were first seen so (by this instance's clock). */
  private readonly suspects = new Map<string, number>();
  private readonly graceMs: number;
  private readonly now: () => number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: AbandonedRunsOptions = {},
  ) {
    this.graceMs = options.graceMs ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** The runs the last sweep saw without a lease but did not end yet (their grace is running). */
  suspected(): string[] {
    return [...this.suspects.keys()];
  }

  /**
   * Mark ended (status 'cancelled', finished now by the database clock) every running run whose
   * lease nobody has held for graceMs, announce each one, and answer their ids.
   */
  async endAbandoned(): Promise<string[]> {
    const now = this.now();
    const { rows } = await this.pool.query<{ id: string }>(`select id from runs r where r.status = 'running' and not ${leaseHeld("r.id")}`);
    const unheld = new Set(rows.map((row) => row.id));
    for (const id of this.suspects.keys()) if (!unheld.has(id)) this.suspects.delete(id);
    const due: string[] = [];
    for (const id of unheld) {
      const since = this.suspects.get(id);
      if (since === undefined) this.suspects.set(id, now);
      if (now - (since ?? now) >= this.graceMs) due.push(id);
    }
    if (due.length === 0) return [];

    const client = await this.pool.connect();
    try {
      await client.query("begin");
      // The read above only picks candidates. Here the sweep takes each run's lease itself, for
      // this transaction: a run whose owner took its lease back since is skipped, and an owner
      // coming back now cannot take the lease until this commits, then reads the run as ended.
      const { rows: ended } = await client.query<{ id: string }>(
        `update runs set status = 'cancelled', error = $2, finished_at = ${NOW_MS}, updated_at = ${NOW_MS}
          where id = any($1::text[]) and status = 'running'
            and pg_try_advisory_xact_lock(${lockKey("runs.id")})
          returning id`,
        [due, ABANDONED_RUN_ERROR],
      );
      const announce = this.options.announce ?? ((tx, change) => notifyChange(tx, change));
      for (const { id } of ended) await announce(client, { kind: "run", id });
      await client.query("commit");
      for (const { id } of ended) this.suspects.delete(id);
      return ended.map((row) => row.id);
    } catch (error) {
      await client.query("rollback").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
}
