import { describe, expect, it } from "vitest";
import { EventQueue } from "@/lib/streams/event-queue";

/** Resolves with the batch, and whether a macrotask (an immediate set before the producer pushed) ran first. */
async function batchAfterPushes(produce: (queue: EventQueue<number>) => void): Promise<{ batch: number[] | undefined; waited: boolean }> {
  const queue = new EventQueue<number>();
  const pending = queue.nextBatch();
  let waited = false;
  setImmediate(() => (waited = true));
  produce(queue);
  const batch = await pending;
  return { batch, waited };
}

describe("EventQueue.nextBatch", () => {
  it("waits a turn of the event loop for more once the first item came, and takes everything pushed meanwhile", async () => {
    const { batch, waited } = await batchAfterPushes((queue) => {
      queue.push(1);
      queue.push(2);
      setImmediate(() => queue.push(3));
    });
    expect(batch).toEqual([1, 2, 3]);
    expect(waited).toBe(true);
  });

  // A run's last events come with the close of its queue: nothing more can come, so no turn is spent waiting.
  it("takes the last items of a closed queue at once, without waiting a turn", async () => {
    const { batch, waited } = await batchAfterPushes((queue) => {
      queue.push(1);
      queue.push(2);
      queue.close();
    });
    expect(batch).toEqual([1, 2]);
    expect(waited).toBe(false);
  });

  it("ends once a closed queue is empty, and ends with the failure of a failed one after its items", async () => {
    const closed = new EventQueue<number>();
    closed.push(1);
    closed.close();
    expect(await closed.nextBatch()).toEqual([1]);
    expect(await closed.nextBatch()).toBeUndefined();

    const failed = new EventQueue<number>();
    const pending = failed.nextBatch();
    failed.push(1);
    failed.fail(new Error("broken"));
    expect(await pending).toEqual([1]);
    await expect(failed.nextBatch()).rejects.toThrow("broken");
  });
});
