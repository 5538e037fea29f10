import { afterAll, describe, expect, it } from "vitest";
import { evaluate } from "@/lib/demo/arithmetic";
import { testServices } from "./support/services";
import { approvalIdOf } from "./support/outcomes";

const services = testServices({ APPROVAL_TTL_SECONDS: "60" });
afterAll(() => services.close());

describe("calculate's parser", () => {
  it.each([
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["2 ^ 3 ^ 2", 512],
    ["-2 ^ 2", -4],
    ["10 % 4", 2],
    ["sqrt(16) + max(1, 5, 3)", 9],
    ["2 * pi", 2 * Math.PI],
    ["1.5e3 / 3", 500],
  ])("%s = %d", (expression, expected) => {
    expect(evaluate(expression)).toBeCloseTo(expected);
  });

  it.each(["1 +", "2 * (3", "process.exit(1)", "1 / 0", "foo(2)", "1 2"])("refuses %s", (expression) => {
    expect(() => evaluate(expression)).toThrow();
  });
});

describe("demo tools", () => {
  it("are seeded with schemas and policies", () => {
    const names = services.registry.all().map((t) => t.name);
    expect(names).toEqual(["calculate", "create_ticket", "current_time", "get_weather", "issue_refund"]);
    for (const tool of services.registry.all()) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema).toBeDefined();
    }
    expect(services.registry.get("issue_refund")?.policy).toMatchObject({ confirm: true, effects: "destructive" });
    expect(services.registry.get("create_ticket")?.policy).toMatchObject({ confirm: true, effects: "write" });
    expect(services.registry.get("get_weather")?.policy).toMatchObject({ confirm: false, effects: "read", idempotent: true });
  });

  it("refuse a property their schema does not name, as invalid arguments (the tool never runs)", async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ["get_weather", { city: "Paris", country: "FR" }],
      ["calculate", { expression: "1 + 1", precision: 2 }],
      ["current_time", { timezone: "UTC", format: "iso" }],
      ["create_ticket", { title: "Printer on fire", assignee: "bob" }],
      ["issue_refund", { orderId: "1234", amount: 20, force: true }],
    ];
    expect(calls.map(([name]) => name).sort()).toEqual(services.registry.all().map((t) => t.name));
    for (const [name, args] of calls) {
      expect(services.registry.get(name)?.inputSchema.additionalProperties, name).toBe(false);
      const result = await services.executor.call(name, args);
      expect(result, name).toMatchObject({ ok: false, error: { kind: "invalid_arguments" } });
    }
  });

  it("get_weather is deterministic", async () => {
    const a = await services.executor.call("get_weather", { city: "Paris" });
    const b = await services.executor.call("get_weather", { city: "paris" });
    expect(a).toMatchObject({ ok: true, value: { city: "Paris", temperature: expect.any(Number) } });
    expect(b).toMatchObject({ ok: true, value: { city: "paris" } });
    const { city: _a, ...weatherA } = (a as { value: Record<string, unknown> }).value;
    const { city: _b, ...weatherB } = (b as { value: Record<string, unknown> }).value;
    expect(weatherA).toEqual(weatherB);
  });

  it("calculate reports a bad expression as a tool error", async () => {
    const result = await services.executor.call("calculate", { expression: "2 * (3" });
    expect(result).toMatchObject({ ok: false, error: { kind: "tool_error" } });
    expect(await services.executor.call("calculate", { expression: "6 * 7" })).toEqual({
      ok: true,
      value: { expression: "6 * 7", result: 42 },
    });
  });

  it("current_time refuses an unknown time zone", async () => {
    expect(await services.executor.call("current_time", { timezone: "Mars/Olympus" })).toMatchObject({
      ok: false,
      error: { kind: "tool_error" },
    });
    expect(await services.executor.call("current_time", { timezone: "Europe/Paris" })).toMatchObject({
      ok: true,
      value: { timezone: "Europe/Paris" },
    });
  });

  it("issue_refund waits for approval, runs once approved, and the approval keeps the outcome", async () => {
    const ctx = { principal: "alice", scope: "thread-1", runId: "run-1", surface: "agui" as const };
    const pending = await services.executor.call("issue_refund", { orderId: "1234", amount: 20 }, { callId: "c1", ctx });
    const approvalId = approvalIdOf(pending);
    expect(pending).toMatchObject({ pending: { approvalId: expect.stringMatching(/^apr_/) } });
    await services.approvals.decide(approvalId, { approved: true, decidedBy: "operator" });
    const done = await services.executor.call("issue_refund", { orderId: "1234", amount: 20 }, { callId: "c1", ctx });
    expect(done).toMatchObject({ ok: true, value: { orderId: "1234", amount: 20, currency: "EUR", status: "issued" } });
    const approval = (await services.approvals.get(approvalId))!;
    expect(approval.status).toBe("consumed");
    expect(approval.result).toEqual(done);
    expect(approval.ranAt).toBeTypeOf("number");
  });

  it("each run of create_ticket returns a fresh id", async () => {
    await services.registry.update("create_ticket", { approval: "never" });
    const a = await services.executor.call("create_ticket", { title: "Printer on fire" });
    const b = await services.executor.call("create_ticket", { title: "Printer on fire" });
    expect([a, b]).toMatchObject([{ ok: true }, { ok: true }]);
    expect((a as { value: { ticketId: string } }).value.ticketId).not.toBe((b as { value: { ticketId: string } }).value.ticketId);
  });
});
