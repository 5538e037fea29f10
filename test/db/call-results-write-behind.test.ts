import { describe, expect, it, vi } from "vitest";
import { CallResults } from "@/lib/db/call-results";
import { countRows, freshDatabase } from "../support/database";

const key = (callId: string, scope = "s") => ({ principal: "p", scope, callId, tool: "noop", argsDigest: "d" });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("call records written behind", () => {
  it("answers from memory until the batch is written, then from the table, in one transaction per turn", async () => {
    const handle = freshDatabase();
    const records = new CallResults(handle.db, { writeBehind: true });
    for (let i = 0; i < 20; i++) await records.put(key(`c${i}`), { ok: true, value: { i } }, 1, {});
    expect(countRows(handle, "call_results")).toBe(0);
    expect(await records.get(key("c7"))).toEqual({ ok: true, value: { i: 7 } });
    await tick();
    expect(countRows(handle, "call_results")).toBe(20);
    // Another reader of the same file (a restarted process) sees them.
    expect(await new CallResults(handle.db).get(key("c7"))).toEqual({ ok: true, value: { i: 7 } });
    handle.close();
  });

  it("keeps the first record of a call, as the table does, and keeps keys apart whatever they hold", async () => {
    const handle = freshDatabase();
    const records = new CallResults(handle.db, { writeBehind: true });
    expect(await records.put(key("c"), { ok: true, value: "first" }, 1)).toBe(true);
    expect(await records.put(key("c"), { ok: true, value: "second" }, 1)).toBe(false);
    // Keys whose parts would run together if they were joined with a separator.
    expect(await records.put(key("b\u0000c", "a"), { ok: true, value: "one" }, 1)).toBe(true);
    expect(await records.put(key("c", "a\u0000b"), { ok: true, value: "two" }, 1)).toBe(true);
    expect(await records.get(key("c"))).toEqual({ ok: true, value: "first" });
    expect(await records.get(key("b\u0000c", "a"))).toEqual({ ok: true, value: "one" });
    expect(await records.get(key("c", "a\u0000b"))).toEqual({ ok: true, value: "two" });
    records.flush();
    expect(await new CallResults(handle.db).get(key("c"))).toEqual({ ok: true, value: "first" });
    handle.close();
  });

  it("commits at most every commitEveryMs while calls keep coming, and a call after a quiet spell in the next turn", async () => {
    const handle = freshDatabase();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "clearImmediate", "performance"] });
    try {
      const records = new CallResults(handle.db, { writeBehind: true, commitEveryMs: 50 });
      await records.put(key("c1"), { ok: true, value: 1 }, 1);
      vi.advanceTimersToNextTimer();
      expect(countRows(handle, "call_results")).toBe(1);
      // Within 50 ms of that commit: the next records wait for the 50 ms to pass, then go together.
      vi.advanceTimersByTime(20);
      await records.put(key("c2"), { ok: true, value: 2 }, 1);
      await records.put(key("c3"), { ok: true, value: 3 }, 1);
      vi.advanceTimersByTime(29);
      expect(countRows(handle, "call_results")).toBe(1);
      expect(await records.get(key("c2"))).toEqual({ ok: true, value: 2 });
      vi.advanceTimersByTime(1);
      expect(countRows(handle, "call_results")).toBe(3);
      // A flush (before a listing, at close) writes at once and leaves nothing scheduled.
      vi.advanceTimersByTime(10);
      await records.put(key("c4"), { ok: true, value: 4 }, 1);
      records.flush();
      expect(countRows(handle, "call_results")).toBe(4);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
      handle.close();
    }
  });

  it("writes what waits before listing a tool's calls, and reports a batch the database refuses", async () => {
    const handle = freshDatabase();
    const failures: number[] = [];
    const records = new CallResults(handle.db, { writeBehind: true, onError: (_error, count) => failures.push(count) });
    await records.put(key("c1"), { ok: true, value: 1 }, 1, {});
    expect((await records.recent("noop")).map((c) => c.callId)).toEqual(["c1"]);

    handle.db.$client.exec("create trigger refuse before insert on call_results begin select raise(abort, 'refused'); end");
    await records.put(key("c2"), { ok: true, value: 2 }, 1, {});
    await records.put(key("c3"), { ok: true, value: 3 }, 1, {});
    await tick();
    expect(failures).toEqual([2]);
    expect(countRows(handle, "call_results")).toBe(1);
    handle.close();
  });
});
