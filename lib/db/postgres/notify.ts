import { sql, type SQL } from "drizzle-orm";
import pg from "pg";
import { ChangeListeners, decodeChange, encodeChange, type ChangeBus, type ChangeListener, type PublishedChange } from "../change-bus";

/** The channel consoles sharing one database announce changes on, unless told otherwise. */
export const DEFAULT_CHANGE_CHANNEL = "console_changes";

/**
 * Where a notification can be sent from: the pool (sent at once), a checked-out client or a
 * drizzle transaction (sent when that transaction commits, never if it rolls back).
 */
export type NotifyTarget = pg.Pool | pg.ClientBase | { execute(query: SQL): PromiseLike<unknown> };

/**
 * Send `change` on `channel` through `target`. NOTIFY itself takes no bind parameters, so the
 * function form pg_notify($1, $2) carries both. Inside a transaction PostgreSQL holds the
 * notification until commit and drops it on rollback, which is why a writer should pass its
 * transaction: listeners then never hear of a change they cannot read yet, or that never happened.
 * Throws InvalidChangeError for a change that cannot be announced, and the driver's error if the
 * statement fails (inside a transaction, that aborts it).
 */
export async function notifyChange(target: NotifyTarget, change: PublishedChange, channel = DEFAULT_CHANGE_CHANNEL): Promise<void> {
  const payload = encodeChange(change);
  // A drizzle database or transaction also has a `query` member (its relational queries), so
  // `execute` is what tells it from a pg pool or client.
  if ("execute" in target) await target.execute(sql`select pg_notify(${channel}, ${payload})`);
  else await target.query("select pg_notify($1, $2)", [channel, payload]);
}

export interface PgChangeBusOptions {
  /** Defaults to DEFAULT_CHANGE_CHANNEL; every instance must use the same one. */
  channel?: string;
  /** Shown in pg_stat_activity for the listening connection. */
  applicationName?: string;
  /** Wait before the first reconnect attempt, doubled after each failure up to `maxRetryMs` (100 and 5000 unless given). */
  firstRetryMs?: number;
  maxRetryMs?: number;
  /** Hears the listening connection fail (it is reconnected) and a subscriber throw. */
  onError?: (error: unknown) => void;
}

/**
 * The change bus of consoles sharing one PostgreSQL database, over LISTEN/NOTIFY.
 *
 * Publishing uses the pool (or the writer's transaction). Hearing needs one connection that stays
 * open and stays the same, so the bus keeps its own pg.Client beside the pool: a pooled connection
 * would be handed to other work and released, and LISTEN belongs to the session.
 *
 * When that connection dies (the server restarted, an administrator ended it, the network broke)
 * the bus connects again with a growing wait. PostgreSQL keeps nothing for a listener that is not
 * there, so whatever was announced in between is lost: after every reconnect the bus emits
 * `{ kind: "resync" }` and subscribers re-read what they show.
 */
export class PgChangeBus implements ChangeBus {
  private readonly channel: string;
  private readonly listeners: ChangeListeners;
  private readonly onError: (error: unknown) => void;
  private client: pg.Client | undefined;
  private pid: number | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private listenedOnce = false;
  private closed = false;

  private constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
    private readonly options: PgChangeBusOptions,
  ) {
    this.channel = options.channel ?? DEFAULT_CHANGE_CHANNEL;
    this.onError = options.onError ?? ((error) => console.error("PostgreSQL change bus:", error instanceof Error ? error.message : error));
    this.listeners = new ChangeListeners(this.onError);
  }

  /**
   * Start listening on `url` (the database the pool is on) and hand back the bus once LISTEN is in
   * place, so nothing published after this resolves is missed. Throws the driver's error when the
   * first connection cannot be made; later losses are repaired in the background.
   */
  static async open(url: string, pool: pg.Pool, options: PgChangeBusOptions = {}): Promise<PgChangeBus> {
    const bus = new PgChangeBus(url, pool, options);
    try {
      await bus.connect();
    } catch (error) {
      await bus.close();
      throw error;
    }
    return bus;
  }

  /** The server process id of the listening connection, while it is up (tests end it to prove the reconnect). */
  get listenerPid(): number | undefined {
    return this.pid;
  }

  /** Announce a change through the pool, or through `tx` so that it is delivered when `tx` commits. */
  async publish(change: PublishedChange, tx?: NotifyTarget): Promise<void> {
    if (this.closed) throw new Error("the change bus is closed");
    await notifyChange(tx ?? this.pool, change, this.channel);
  }

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.listeners.clear();
    const client = this.client;
    this.client = undefined;
    this.pid = undefined;
    await client?.end().catch(() => {});
  }

  /** One attempt: connect, LISTEN, and from then on deliver; the caller handles a failure. */
  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: this.options.applicationName ?? "agui-console-listener",
      // The operating system probes an idle connection, so a silently dropped one ends in minutes
      // instead of never (the listener only reads, and would otherwise wait for ever).
      keepAlive: true,
    });
    // Without an 'error' listener a killed backend crashes the whole process. 'end' follows it.
    client.on("error", (error) => this.onError(error));
    client.on("end", () => this.lost(client));
    client.on("notification", (message) => {
      if (message.channel !== this.channel || !message.payload || this.client !== client) return;
      const change = decodeChange(message.payload);
      if (change) this.listeners.emit(change);
    });
    try {
      await client.connect();
      await client.query(`listen ${client.escapeIdentifier(this.channel)}`);
      const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
      if (this.closed) throw new Error("the change bus was closed while it connected");
      this.client = client;
      this.pid = rows[0]?.pid;
    } catch (error) {
      client.removeAllListeners("end");
      await client.end().catch(() => {});
      throw error;
    }
    this.failures = 0;
    if (this.listenedOnce) this.listeners.emit({ kind: "resync" });
    this.listenedOnce = true;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.pid = undefined;
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const first = this.options.firstRetryMs ?? 100;
    const wait = Math.min(this.options.maxRetryMs ?? 5000, first * 2 ** this.failures);
    this.retryTimer = setTimeout(() => {
      this.connect().catch((error: unknown) => {
        this.failures += 1;
        if (!this.closed) this.onError(error);
        this.scheduleReconnect();
      });
    }, wait);
    // A bus waiting to reconnect does not on its own keep the process alive.
    this.retryTimer.unref();
  }
}
