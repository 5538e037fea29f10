/**
 * A seeded pseudo-random source for the fuzz suite, so that a failure can be replayed: every pass
 * prints its seed, and FUZZ_SEED=<that number> makes the next run draw the same requests.
 * The generator is mulberry32: 32 bits of state, fast, and good enough to pick test inputs.
 */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error("pick from an empty list");
    return items[this.int(items.length)]!;
  }

  /** One of the producers, chosen by weight, called. */
  weighted<T>(choices: ReadonlyArray<readonly [weight: number, make: () => T]>): T {
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let roll = this.next() * total;
    for (const [weight, make] of choices) {
      roll -= weight;
      if (roll < 0) return make();
    }
    return choices[choices.length - 1]![1]();
  }

  /** A child source whose draws do not shift this one's sequence. */
  fork(): Random {
    return new Random(this.int(2 ** 32));
  }
}

/** The seed of this run: FUZZ_SEED when set (to replay a failure), else a fresh one. */
export function fuzzSeed(env: Record<string, string | undefined> = process.env): number {
  const given = env.FUZZ_SEED?.trim();
  if (given) {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`FUZZ_SEED must be a whole number, not "${given}"`);
    return seed >>> 0;
  }
  return Math.floor(Math.random() * 2 ** 32);
}

/** How many requests per endpoint: FUZZ_ITERATIONS when set (npm run fuzz sets a large one), else `fallback`. */
export function fuzzIterations(fallback: number, env: Record<string, string | undefined> = process.env): number {
  const given = env.FUZZ_ITERATIONS?.trim();
  if (!given) return fallback;
  const n = Number(given);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`FUZZ_ITERATIONS must be a positive whole number, not "${given}"`);
  return n;
}
