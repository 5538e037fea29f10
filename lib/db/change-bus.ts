/**
 * What one part of the console tells the others when stored state changes: only the kind of thing
 * and its id, never the data. A subscriber reads the rows it needs from the database, so a change
 * announced by another console instance and one announced in this process look the same.
 *
 * `from` names the console instance that announced the change, so that an instance can tell its own
 * announcements (which PostgreSQL delivers to it too) from the others'.
 *
 * `resync` is never published: a bus emits it when it may have missed changes (on PostgreSQL,
 * notifications sent while the listening connection was down are lost), and a subscriber answers
 * it by re-reading whatever it shows (pending approvals, running runs, the tool registry).
 */
export type Change =
  | { kind: "approval"; id: string; from?: string }
  | { kind: "run"; id: string; from?: string }
  | { kind: "registry"; from?: string }
  | { kind: "settings"; from?: string }
  | { kind: "resync" };

/** The changes a writer may announce. */
export type PublishedChange = Exclude<Change, { kind: "resync" }>;

export type ChangeListener = (change: Change) => void;

/**
 * The port the rest of the console uses to announce and hear changes, whatever the database: one
 * process on SQLite, several instances on one PostgreSQL.
 *
 * A change must never be heard before the write it announces is visible. Code above lib/db
 * publishes after its store call returned (the write committed). A store that writes on
 * PostgreSQL may instead announce inside its own transaction with notifyChange(tx, …) from
 * ./postgres/notify, which PostgreSQL delivers at commit and drops on rollback; on SQLite the
 * store publishes after its synchronous transaction.
 */
export interface ChangeBus {
  /** Announce a change to every subscriber (of every instance, where there are several). */
  publish(change: PublishedChange): Promise<void>;
  /** Hear every change until the returned function is called. */
  subscribe(listener: ChangeListener): () => void;
  /** Stop delivering; later publishes are refused. Calling it again does nothing. */
  close(): Promise<void>;
}

/** The longest id a change may carry; PostgreSQL refuses a notification payload of 8000 bytes. */
export const MAX_CHANGE_ID_LENGTH = 512;
/** The longest instance name (`from`) a change may carry. */
export const MAX_INSTANCE_LENGTH = 64;

/** Raised for a change that cannot be announced (an empty or overlong id, an unknown kind). */
export class InvalidChangeError extends Error {
  override readonly name = "InvalidChangeError";
}

/** Check a change before it is announced; throws InvalidChangeError. */
export function assertPublishable(change: PublishedChange): void {
  if (change.from !== undefined && (typeof change.from !== "string" || !change.from || change.from.length > MAX_INSTANCE_LENGTH))
    throw new InvalidChangeError(`a change's instance name has 1 to ${MAX_INSTANCE_LENGTH} characters`);
  switch (change.kind) {
    case "registry":
    case "settings":
      return;
    case "approval":
    case "run":
      if (typeof change.id !== "string" || change.id.length === 0 || change.id.length > MAX_CHANGE_ID_LENGTH)
        throw new InvalidChangeError(`a ${change.kind} change needs an id of 1 to ${MAX_CHANGE_ID_LENGTH} characters`);
      return;
    default:
      throw new InvalidChangeError(`unknown change kind ${JSON.stringify((change as { kind?: unknown }).kind)}`);
  }
}

/** The wire form of a change: small JSON with only its kind and id. */
export function encodeChange(change: PublishedChange): string {
  assertPublishable(change);
  const from = change.from === undefined ? {} : { from: change.from };
  if (change.kind === "registry" || change.kind === "settings") return JSON.stringify({ kind: change.kind, ...from });
  return JSON.stringify({ kind: change.kind, id: change.id, ...from });
}

/**
 * Read a change written by encodeChange, possibly by another instance or another version of the
 * console: anything else (bad JSON, unknown kind, missing id) gives undefined and is ignored.
 */
export function decodeChange(payload: string): PublishedChange | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { kind, id, from } = value as { kind?: unknown; id?: unknown; from?: unknown };
  const origin = typeof from === "string" && from.length > 0 && from.length <= MAX_INSTANCE_LENGTH ? { from } : {};
  if (kind === "registry" || kind === "settings") return { kind, ...origin };
  if ((kind === "approval" || kind === "run") && typeof id === "string" && id.length > 0 && id.length <= MAX_CHANGE_ID_LENGTH)
    return { kind, id, ...origin };
  return undefined;
}

/**
 * Calls every listener with a change. One listener that throws does not keep the change from the
 * others; its error goes to `onError`.
 */
export class ChangeListeners<T = Change> {
  private readonly listeners = new Set<(change: T) => void>();
  constructor(private readonly onError: (error: unknown) => void) {}

  add(listener: (change: T) => void): () => void {
    // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
    const entry = (change: T) => listener(change);
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  emit(change: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

/**
 * The bus of a console on SQLite: one process, so a change goes straight to this process's
 * subscribers. It is delivered on a later turn of the event loop, as a bus over a database would deliver it,
 * so a publisher never runs subscriber code in the middle of its own work.
 */
export class LocalChangeBus implements ChangeBus {
  private readonly listeners: ChangeListeners;
  private closed = false;

  constructor(options: { onListenerError?: (error: unknown) => void } = {}) {
    this.listeners = new ChangeListeners(options.onListenerError ?? ((error) => console.error("change listener failed:", error)));
  }

  async publish(change: PublishedChange): Promise<void> {
    if (this.closed) throw new Error("the change bus is closed");
    const copy = decodeChange(encodeChange(change))!;
    setImmediate(() => {
      if (!this.closed) this.listeners.emit(copy);
    });
  }

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.add(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
  }
}
