/**
 * Work keyed by a name, run once at a time per key: a caller that asks while the key's work is under
 * way gets that same promise instead of starting another. Once it settles, the next ask runs anew.
 */
export class SingleFlight<T> {
  private readonly flights = new Map<string, Promise<T>>();

  /** The promise of the work under way for `key`, or of `work()` started now. */
  run(key: string, work: () => Promise<T>): Promise<T> {
    let flight = this.flights.get(key);
    if (!flight) {
      flight = work().finally(() => this.flights.delete(key));
      this.flights.set(key, flight);
    }
    return flight;
  }
}
