import { EventType, type AGUIEvent } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { EventJsonEncoder } from "@/lib/runs/event-json";
import { expandRecord, RecordBatch } from "@/lib/runs/record-batch";

const T = 1_800_000_000_000;
const ev = (event: Record<string, unknown>) => event as unknown as AGUIEvent;

/** A run's worth of events that exercises every path of the encoder and the record. */
const sample: AGUIEvent[] = [
  ev({ type: EventType.RUN_STARTED, threadId: "t", runId: "r", protocolVersion: "1.0", timestamp: T }),
  ev({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: "r1", delta: "think", timestamp: T + 1 }),
  ev({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: "r1", delta: "ing", timestamp: T + 1 }),
  ev({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: 'quotes " and \\ and\nnewlines', timestamp: T + 2 }),
  ev({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "émoji 🌦 \u2028", timestamp: T + 14 }),
  ev({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "", timestamp: T + 13 }),
  // Another item interleaved, then back to the first one.
  ev({ type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '{"city":' }),
  ev({ type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '"Paris"}' }),
  ev({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "again", timestamp: T + 20 }),
  // Kept as they are: an extra field, a fractional timestamp, a missing timestamp after timed ones, keys in another order.
  ev({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "raw", timestamp: T + 21, rawEvent: { id: 1 } }),
  ev({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "frac", timestamp: T + 21.5 }),
  ev({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "untimed" }),
  ev({ delta: "order", messageId: "m1", type: EventType.TEXT_MESSAGE_CONTENT, timestamp: T + 30 }),
  ev({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "undefined stamp", timestamp: undefined }),
  ev({ type: EventType.TEXT_MESSAGE_END, messageId: "m1", timestamp: T + 40 }),
  ev({ type: EventType.RUN_FINISHED, threadId: "t", runId: "r", outcome: { type: "success" }, timestamp: T + 41 }),
];

describe("EventJsonEncoder", () => {
  it("writes JSON that parses to what JSON.stringify writes, byte for byte when the keys are in the usual order", () => {
    const encoder = new EventJsonEncoder();
    for (const event of sample) {
      const json = encoder.encode(event);
      expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(event)));
      if (Object.keys(event)[0] === "type") expect(json).toBe(JSON.stringify(event));
    }
  });

  it("takes the short path only for plain content events", () => {
    const encoder = new EventJsonEncoder();
    const took = sample.map((event) => (encoder.encode(event), encoder.content));
    expect(took).toEqual([false, true, true, true, true, true, true, true, true, false, true, true, true, true, false, false]);
  });
});

describe("EventJsonEncoder and MESSAGES_SNAPSHOT", () => {
  it("keeps the snapshot's messages as JSON for the thread, and only for a plain snapshot", () => {
    const encoder = new EventJsonEncoder();
    const messages = [
      { id: "u1", role: "user", content: 'say "hi"\n' },
      {
        id: "a1",
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
      },
    ];
    const plain = ev({ type: EventType.MESSAGES_SNAPSHOT, messages, timestamp: T });
    expect(encoder.encode(plain)).toBe(JSON.stringify(plain));
    expect(encoder.messagesJson).toBe(JSON.stringify(messages));

    const untimed = ev({ type: EventType.MESSAGES_SNAPSHOT, messages });
    expect(encoder.encode(untimed)).toBe(JSON.stringify(untimed));
    expect(JSON.parse(encoder.messagesJson!)).toEqual(messages);

    const extra = ev({ type: EventType.MESSAGES_SNAPSHOT, messages, rawEvent: { source: "x" } });
    expect(encoder.encode(extra)).toBe(JSON.stringify(extra));
    expect(encoder.messagesJson).toBeUndefined();
  });
});

describe("RecordBatch", () => {
  it("gives back every event exactly, in order, from a record much shorter than the events' JSON", () => {
    const batch = new RecordBatch();
    const wire = sample.map((event) => batch.add(event));
    expect(wire).toEqual(sample.map((event) => new EventJsonEncoder().encode(event)));
    const record = batch.take()!;
    expect(record.count).toBe(sample.length);
    expect(expandRecord(record.json)).toEqual(JSON.parse(JSON.stringify(sample)));
    expect(batch.take()).toBeUndefined();

    const stream = new RecordBatch();
    const deltas = Array.from({ length: 500 }, (_, i) =>
      ev({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "msg_7f3a9c2e", delta: `word${i} `, timestamp: T + i * 12 }),
    );
    for (const event of deltas) stream.add(event);
    const long = stream.take()!;
    expect(expandRecord(long.json)).toEqual(deltas);
    expect(long.json.length * 3).toBeLessThan(deltas.map((e) => JSON.stringify(e)).join(",").length);
  });

  it("keeps a stretch that spans batches correct on both sides", () => {
    const batch = new RecordBatch();
    const first = sample.slice(0, 4);
    const second = sample.slice(4);
    for (const event of first) batch.add(event);
    const a = batch.take()!;
    for (const event of second) batch.add(event);
    const b = batch.take()!;
    expect([...expandRecord(a.json), ...expandRecord(b.json)]).toEqual(JSON.parse(JSON.stringify(sample)));
  });

  it("refuses a stretch of an unknown kind", () => {
    expect(() => expandRecord('[{"$content":"NOT_AN_EVENT","id":"x","deltas":["a"]}]')).toThrow(/Malformed/);
  });
});
