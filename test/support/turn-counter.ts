/** Counts turns of the event loop (a chain of immediates) until stopped: how often the loop turned while some work went on. */
export function countTurns(): { readonly turns: number; stop(): void } {
  let turns = 0;
  let going = true;
  const tick = () => {
    turns++;
    if (going) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turns() {
      return turns;
    },
    stop: () => {
      going = false;
    },
  };
}
