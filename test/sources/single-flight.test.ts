import { describe, expect, it } from "vitest";
import { SingleFlight } from "@/lib/sources/single-flight";

describe("SingleFlight", () => {
  it("gives callers that ask while a key's work runs the same promise, and runs it again once settled", async () => {
    const flights = new SingleFlight<number>();
    let runs = 0;
    let release!: (value: number) => void;
    const work = () => {
      runs++;
      return new Promise<number>((resolve) => (release = resolve));
    };
    const first = flights.run("a", work);
    const second = flights.run("a", work);
    expect(second).toBe(first);
    expect(runs).toBe(1);
    release(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    const third = flights.run("a", work);
    expect(third).not.toBe(first);
    expect(runs).toBe(2);
    release(8);
    expect(await third).toBe(8);
  });

  it("keeps keys apart, and forgets a failure once it is shared", async () => {
    const flights = new SingleFlight<string>();
    const failing = flights.run("a", () => Promise.reject(new Error("down")));
    const other = flights.run("b", () => Promise.resolve("b"));
    await expect(failing).rejects.toThrow("down");
    await expect(flights.run("a", () => Promise.reject(new Error("ignored")))).rejects.toThrow("ignored");
    expect(await other).toBe("b");
    expect(await flights.run("a", () => Promise.resolve("up"))).toBe("up");
  });
});
