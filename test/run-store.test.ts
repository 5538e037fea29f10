import type { AGUIEvent } from "@ag-ui/core";
import { afterAll, expect, it } from "vitest";
import { testServices } from "./support/services";

const services = testServices();
afterAll(() => services.close());

it("keeps every event of a run in order, small batches as text and long ones deflated", () => {
  services.runs.start({ runId: "r-store", threadId: "t-store", agent: "demo", principal: "local" });
  const event = (i: number) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: `word ${i} `, timestamp: 1_800_000_000_000 + i }) as AGUIEvent;
  const small = [0, 1, 2].map(event);
  const large = Array.from({ length: 500 }, (_, i) => event(3 + i));
  services.runs.append("r-store", 0, small);
  services.runs.append("r-store", 3, large);
  services.runs.append("r-store", 503, [event(503)]);

  const rows = services.database.sqlite.prepare("select seq, count, typeof(events) as kind from run_events where run_id = ? order by seq").all("r-store");
  expect(rows).toEqual([
    { seq: 0, count: 3, kind: "text" },
    { seq: 3, count: 500, kind: "blob" },
    { seq: 503, count: 1, kind: "text" },
  ]);
  const events = services.runs.events("r-store");
  expect(events).toHaveLength(504);
  expect(events.map((e) => (e as { delta: string }).delta)).toEqual(Array.from({ length: 504 }, (_, i) => `word ${i} `));
  expect(services.runs.events("r-store", 500).map((e) => (e as { timestamp: number }).timestamp - 1_800_000_000_000)).toEqual([501, 502, 503]);
});
