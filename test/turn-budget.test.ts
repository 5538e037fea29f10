// One budget per turn of the event loop for everything that streams without waiting
// (lib/streams/turn-budget.ts): spent once TURN_BUDGET_MS have passed since the turn's first ask,
// whoever did the work; fresh again in the next turn, ahead of the immediates that yielded.
import { describe, expect, it } from "vitest";
import { freshTurn, mapInTurns, TURN_BUDGET_MS, turnAvailable, turnSpent } from "@/lib/streams/turn-budget";
import { countTurns } from "./support/turn-counter";

/** Hold the thread for `ms`, as work would. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("the turn budget", () => {
  it("is spent once the turn's work passes the budget, and fresh in the next turn", async () => {
    // Only the first ask of a turn is sure to find room, whatever the scheduler does meanwhile.
    await nextTurn();
    expect(turnSpent()).toBe(false);
    busy(TURN_BUDGET_MS + 1);
    expect(turnSpent()).toBe(true);
    await nextTurn();
    expect(turnSpent()).toBe(false);
  });

  it("counts everyone's work in the turn: one producer's work spends it for the others", async () => {
    await nextTurn();
    turnSpent();
    busy(TURN_BUDGET_MS + 1); // someone else's work, after the first ask
    expect(turnSpent()).toBe(true);
  });

  it("turnAvailable resolves in the same turn while there is room, in a later one once it is spent", async () => {
    await nextTurn();
    let immediateRan = false;
    setImmediate(() => (immediateRan = true));
    await turnAvailable();
    expect(immediateRan).toBe(false);

    busy(TURN_BUDGET_MS + 1);
    await turnAvailable();
    expect(immediateRan).toBe(true);
  });

  it("freshTurn always waits for a later turn, even with room in this one", async () => {
    await nextTurn();
    expect(turnSpent()).toBe(false);
    let immediateRan = false;
    setImmediate(() => (immediateRan = true));
    await freshTurn();
    expect(immediateRan).toBe(true);
  });

  it("bounds what many producers do in one turn together, not each one's slice", async () => {
    // 20 producers of 2 ms slices: with a slice each per turn, a turn would hold 20 slices (40 ms).
    const slicesPerTurn: number[] = [0];
    let watching = true;
    const watch = () => {
      slicesPerTurn.push(0);
      if (watching) setImmediate(watch);
    };
    setImmediate(watch);
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let slice = 0; slice < 10; slice++) {
          if (turnSpent()) await turnAvailable();
          busy(2);
          slicesPerTurn[slicesPerTurn.length - 1]!++;
        }
      }),
    );
    watching = false;
    // Each turn holds the slices that fit in the budget and the one that passed it. A slice lasts
    // at least 2 ms of wall time, however the thread is scheduled, so no turn holds more.
    expect(Math.max(...slicesPerTurn)).toBeLessThanOrEqual(Math.ceil(TURN_BUDGET_MS / 2) + 1);
    expect(slicesPerTurn.reduce((a, b) => a + b, 0)).toBe(200);
  });

  it("mapInTurns maps every item in order, yielding to later turns as the budget is spent", async () => {
    await nextTurn();
    const counter = countTurns();
    // The first 64 items take twice the budget: it is checked every 64 items, so the next 64
    // start only in a later turn.
    const mapped = await mapInTurns(
      Array.from({ length: 130 }, (_, i) => i),
      (i) => {
        if (i < 64) busy(TURN_BUDGET_MS / 32);
        return i * 2;
      },
    );
    counter.stop();
    expect(mapped).toEqual(Array.from({ length: 130 }, (_, i) => i * 2));
    expect(counter.turns).toBeGreaterThan(0);
    expect(await mapInTurns([], (x) => x)).toEqual([]);
  });
});
