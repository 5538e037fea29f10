// The demo agent's scripted model reads a few kinds of requests; a refund can be asked for with the
// order or the amount first.
import { describe, expect, it } from "vitest";
import type { ToolDescriptor } from "@/lib/agents/model";
import { planCalls } from "@/lib/agents/scripted-model";

const tools: ToolDescriptor[] = ["issue_refund", "get_weather"].map((name) => ({ name, description: name, parameters: {}, client: false }));
const refund = (orderId: string, amount: number, currency = "EUR") => [{ name: "issue_refund", args: { orderId, amount, currency } }];

describe("the scripted model's refunds", () => {
  it.each([
    ["refund order 1234 for 20 EUR", refund("1234", 20)],
    ["refund 1234 for 20", refund("1234", 20)],
    ["refund order #A-9 for 12,50 $", refund("A-9", 12.5, "USD")],
    ["refund 20 EUR on order 1234", refund("1234", 20)],
    ["please refund €20 for order 1234", refund("1234", 20)],
    ["refund 7.5 usd to order 42", refund("42", 7.5, "USD")],
    ["refund of £3 on order 9", refund("9", 3, "GBP")],
  ])("%s", (text, calls) => {
    expect(planCalls(text, tools)).toEqual(calls);
  });

  it("reads a refund beside another request", () => {
    expect(planCalls("weather in Paris and refund 5 EUR on order 77", tools)).toEqual([
      { name: "get_weather", args: { city: "Paris" } },
      ...refund("77", 5),
    ]);
  });

  it("asks for nothing when the refund names no amount", () => {
    expect(planCalls("refund my order", tools)).toEqual([]);
    // Not 42 EUR on an order called "order".
    expect(planCalls("refund order 42", tools)).toEqual([]);
    expect(planCalls("refund for order 42", tools)).toEqual([]);
  });
});
