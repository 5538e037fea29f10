// The Runs pages' token figures, from usage as the bridge stores it (AG-UI TokenUsage entries).
import { describe, expect, it } from "vitest";
import { tokenDetail, tokenTotal } from "@/components/runs/token-usage";

describe("a run's tokens on the Runs pages", () => {
  const usage = [
    { provider: "openai", model: "gpt-5-mini", inputTokens: 1200, outputTokens: 340, totalTokens: 1540 },
    { provider: "anthropic", model: "claude-sonnet-4-5", inputTokens: 19, outputTokens: 28 },
  ];

  it("totals every provider's entry, counting input and output when no total is given", () => {
    expect(tokenTotal(usage)).toBe("1,587");
    expect(tokenDetail(usage)).toBe("openai gpt-5-mini: 1,200 in, 340 out; anthropic claude-sonnet-4-5: 19 in, 28 out");
  });

  it("shows a dash for a run that reported none", () => {
    expect(tokenTotal(null)).toBe("—");
    expect(tokenTotal([])).toBe("—");
    expect(tokenDetail(null)).toBeUndefined();
  });
});
