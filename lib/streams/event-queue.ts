/**
 * A single-consumer async queue: producers push synchronously, the consumer iterates. Used to turn
 * an agent function's calls into its event stream, or store changes into SSE frames.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private head = 0;
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;

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
  }

  /** End the iteration with an error after the buffered items. */
  fail(error: unknown): void {
    this.failure = { error };
    this.closed = true;
    this.wake();
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
    // The producer pushes from microtasks: once one item came, let it finish what it has ready.
    if (waited) await new Promise<void>((resolve) => setImmediate(resolve));
    const batch = [first.value, ...this.items.slice(this.head)];
    this.items.length = 0;
    this.head = 0;
    return batch;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next() };
  }
}
