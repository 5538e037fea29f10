// The dialect-neutral change bus: the wire form every instance agrees on, and the in-process bus
// a console on SQLite uses.
import { describe, expect, it } from "vitest";
import { decodeChange, encodeChange, InvalidChangeError, LocalChangeBus, MAX_CHANGE_ID_LENGTH, type Change } from "@/lib/db/change-bus";

describe("change wire form", () => {
  it("carries only the kind and the id", () => {
    expect(encodeChange({ kind: "approval", id: "ap_1" })).toBe('{"kind":"approval","id":"ap_1"}');
    expect(encodeChange({ kind: "run", id: "r1" })).toBe('{"kind":"run","id":"r1"}');
    // Extra fields a caller smuggles in do not travel.
    expect(encodeChange({ kind: "registry", id: "x" } as never)).toBe('{"kind":"registry"}');
    expect(decodeChange(encodeChange({ kind: "approval", id: "ap_1" }))).toEqual({ kind: "approval", id: "ap_1" });
  });

  it("carries the announcing instance's name when given, and settings changes", () => {
    expect(encodeChange({ kind: "approval", id: "ap_1", from: "b" })).toBe('{"kind":"approval","id":"ap_1","from":"b"}');
    expect(encodeChange({ kind: "settings", from: "a" })).toBe('{"kind":"settings","from":"a"}');
    expect(decodeChange('{"kind":"registry","from":"a"}')).toEqual({ kind: "registry", from: "a" });
    // A name that is no string or too long is dropped on reading, refused on writing.
    expect(decodeChange(`{"kind":"run","id":"r","from":${JSON.stringify("x".repeat(65))}}`)).toEqual({ kind: "run", id: "r" });
    expect(decodeChange('{"kind":"settings","from":7}')).toEqual({ kind: "settings" });
    expect(() => encodeChange({ kind: "registry", from: "" })).toThrow(InvalidChangeError);
    expect(() => encodeChange({ kind: "registry", from: "x".repeat(65) })).toThrow(InvalidChangeError);
  });

  it("refuses an empty or overlong id and an unknown kind", () => {
    expect(() => encodeChange({ kind: "approval", id: "" })).toThrow(InvalidChangeError);
    expect(() => encodeChange({ kind: "run", id: "x".repeat(MAX_CHANGE_ID_LENGTH + 1) })).toThrow(InvalidChangeError);
    expect(() => encodeChange({ kind: "resync" } as never)).toThrow(InvalidChangeError);
    // The longest id still fits far below PostgreSQL's 8000-byte payload limit, in UTF-8 too.
    expect(Buffer.byteLength(encodeChange({ kind: "run", id: "é".repeat(MAX_CHANGE_ID_LENGTH) }))).toBeLessThan(8000);
  });

  it("ignores what another program put on the channel", () => {
    for (const payload of [
      "",
      "not json",
      "null",
      "[]",
      '{"kind":"resync"}',
      '{"kind":"approval"}',
      '{"kind":"approval","id":7}',
      '{"kind":"drop"}',
    ])
      expect(decodeChange(payload), payload).toBeUndefined();
  });
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("LocalChangeBus", () => {
  it("delivers a change to every subscriber after publish returns, and not after unsubscribe", async () => {
    const bus = new LocalChangeBus();
    const first: Change[] = [];
    const second: Change[] = [];
    const stopFirst = bus.subscribe((change) => first.push(change));
    bus.subscribe((change) => second.push(change));
    await bus.publish({ kind: "approval", id: "a1" });
    expect(first).toEqual([]); // not in the middle of the publisher's work
    await nextTurn();
    expect(first).toEqual([{ kind: "approval", id: "a1" }]);
    expect(second).toEqual([{ kind: "approval", id: "a1" }]);
    stopFirst();
    await bus.publish({ kind: "registry" });
    await nextTurn();
    expect(first).toHaveLength(1);
    expect(second).toEqual([{ kind: "approval", id: "a1" }, { kind: "registry" }]);
  });

  it("a subscriber that throws does not keep the change from the others", async () => {
    const errors: unknown[] = [];
    const bus = new LocalChangeBus({ onListenerError: (error) => errors.push(error) });
    const heard: Change[] = [];
    bus.subscribe(() => {
      throw new Error("boom");
    });
    bus.subscribe((change) => heard.push(change));
    await bus.publish({ kind: "run", id: "r1" });
    await nextTurn();
    expect(heard).toEqual([{ kind: "run", id: "r1" }]);
    expect(errors).toHaveLength(1);
  });

  it("refuses a bad change and anything after close", async () => {
    const bus = new LocalChangeBus();
    const heard: Change[] = [];
    bus.subscribe((change) => heard.push(change));
    await expect(bus.publish({ kind: "approval", id: "" })).rejects.toThrow(InvalidChangeError);
    await bus.close();
    await expect(bus.publish({ kind: "registry" })).rejects.toThrow(/closed/);
    await nextTurn();
    expect(heard).toEqual([]);
  });
});
