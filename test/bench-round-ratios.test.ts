import { describe, expect, it } from "vitest";
import { roundRatios, roundRatiosNote } from "@/bench/support/load";

describe("bench round ratios", () => {
  it("takes the median of each round's ratio, not the ratio of the sides' medians", () => {
    // Rounds 3 to 5 ran in a slow phase, at half speed for both sides: the sides' medians come
    // from it in unlike proportions, each round's ratio does not.
    const ours = [80, 85, 40, 42, 44];
    const theirs = [100, 100, 50, 50, 50];
    const ratios = roundRatios(ours, theirs);
    expect(ratios.each).toEqual([0.8, 0.85, 0.8, 0.84, 0.88]);
    expect(ratios.median).toBeCloseTo(0.84);
    // The sides keep their round order (the median is taken of copies).
    expect(ours).toEqual([80, 85, 40, 42, 44]);
    expect(theirs).toEqual([100, 100, 50, 50, 50]);
    expect(roundRatiosNote(ratios)).toBe("median of the rounds' ratios 0.80, 0.85, 0.80, 0.84, 0.88; ratio of the medians 0.880");
  });
});
