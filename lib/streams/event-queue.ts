/**
 * A single-consumer async queue: producers push synchronously, the consumer iterates. Used to turn
 * an agent function's calls into its event stream, or store changes into SSE frames.
 *
 * With a `capacity`, the queue is bounded for producers that cooperate: `push` never refuses, but
 * a producer that awaits `writable()` before pushing more is held while `capacity` items or more
 * wait, so a consumer that stops taking items stops the producer too (backpressure).
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private head = 0;
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;
  /** Producers held by writable() until there is room. */
  private readonly roomWaiters = new Set<() => void>();

  /** `capacity`: how many waiting items make writable() hold a producer (unbounded by default). */
  constructor(readonly capacity = Number.POSITIVE_INFINITY) {}

  /** How many items wait for the consumer. */
  get size(): number {
    return this.items.length - this.head;
  }

  /** Whether a producer should wait: `capacity` items or more wait, and the queue is open. */
  get full(): boolean {
    return !this.closed && this.size >= this.capacity;
  }

  /**
   * Resolves once fewer than `capacity` items wait (at once when that is so now), or the queue is
   * closed, or `signal` aborts. Never rejects.
   */
  writable(signal?: AbortSignal): Promise<void> {
    if (!this.full || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.roomWaiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      this.roomWaiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  private release(): void {
    if (this.full || !this.roomWaiters.size) return;
    for (const done of [...this.roomWaiters]) done();
  }

  /** The newest item still waiting for the consumer (it may be changed in place until taken). */
  get lastWaiting(): T | undefined {
    return this.head < this.items.length ? this.items[this.items.length - 1] : undefined;
  }

  push(item: T): void {
    if (this.closed) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: item, done: false });
    } else this.items.push(item);
  }

  /** No more items: the iteration ends after the buffered ones. */
  close(): void {
    this.closed = true;
    this.wake();
    this.release();
  }

  /** End the iteration with an error after the buffered items. */
  fail(error: unknown): void {
    this.failure = { error };
    this.closed = true;
    this.wake();
    this.release();
  }

  private wake(): void {
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.({ value: undefined, done: true });
  }

  async next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) {
      const value = this.items[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      this.release();
      return { value, done: false };
    }
    if (this.failure) throw this.failure.error;
    if (this.closed) return { value: undefined, done: true };
    const result = await new Promise<IteratorResult<T>>((resolve) => (this.waiting = resolve));
    // fail() may have run while we waited.
    const failure = this.failure as { error: unknown } | undefined;
    if (result.done && failure) throw failure.error;
    return result;
  }

  /**
   * Everything buffered now, waiting for at least one item; undefined once the queue is closed
   * and empty. Consumers that handle events in batches save one await per item.
   */
  async nextBatch(): Promise<T[] | undefined> {
    const waited = this.head >= this.items.length;
    const first = await this.next();
    if (first.done) return undefined;
    // The producer pushes from microtasks: once one item came, let it finish what it has ready. A
    // queue closed by then takes nothing more (a run's last events come with its close): no wait.
    if (waited && !this.closed) await new Promise<void>((resolve) => setImmediate(resolve));
    const batch = [first.value, ...this.items.slice(this.head)];
    this.items.length = 0;
    this.head = 0;
    this.release();
    return batch;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next() };
  }
}
