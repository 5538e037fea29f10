// One budget for a turn of the event loop, shared by everything that streams without waiting.
// Each such producer already gives the loop a turn every so often; with many at once (20 runs of
// the scripted model) their slices add up within one turn, and a timer or another request waits
// for the sum. Checking one clock bounds the sum instead of each slice.

/** How long producers that consult the budget may hold one turn of the event loop, together. */
export const TURN_BUDGET_MS = 8;

let turnStarted = -1;

/**
 * True once the work done in this turn of the event loop, since the first producer asked, has
 * used TURN_BUDGET_MS: the caller should yield (setImmediate). The turn ends, and a new budget
 * starts, with the first immediate after the first ask, which runs ahead of the callers' own.
 */
export function turnSpent(): boolean {
  const now = performance.now();
  if (turnStarted < 0) {
    turnStarted = now;
    setImmediate(newTurn);
    return false;
  }
  return now - turnStarted > TURN_BUDGET_MS;
}

function newTurn(): void {
  turnStarted = -1;
}

/** Resolves in a turn of the event loop whose budget is not spent (this one's, when it is not). */
export async function turnAvailable(): Promise<void> {
  while (turnSpent()) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A turn of the event loop to itself, for one large block of work (parsing a megabyte body,
 * writing a document): it waits for the next turn, and a later one while that one's budget is
 * spent. The budget sees only the work done after its turn's first ask, so the work before a
 * block (a large message received, a write just committed) would otherwise share its turn.
 */
export async function freshTurn(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  await turnAvailable();
}

/**
 * `items` mapped by `each`, yielding to the next turn of the event loop whenever the turn's budget
 * is spent: mapping thousands (an import's tools) never holds the loop for the whole of it.
 */
export async function mapInTurns<T, R>(items: readonly T[], each: (item: T) => R): Promise<R[]> {
  const mapped: R[] = [];
  for (let i = 0; i < items.length; i++) {
    // The budget is asked every 64 items: an await for each would cost more than many items do.
    if ((i & 63) === 0) await turnAvailable();
    mapped.push(each(items[i]!));
  }
  return mapped;
}
