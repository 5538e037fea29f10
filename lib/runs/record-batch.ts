import type { AGUIEvent } from "@ag-ui/core";
import { CONTENT_EVENTS, EventJsonEncoder } from "./event-json";

/**
 * A stretch of plain content events of one item, stored as one entry: the item once and every
 * delta in order, with the timestamps as the first one and then the gaps between them.
 */
interface ContentStretch {
  $content: string;
  id: string;
  deltas: string[];
  times?: number[];
}

/** The stored form of `events` as one batch (for a store given events not encoded on the way out). */
export function recordOf(events: readonly AGUIEvent[]): { count: number; json: string } | undefined {
  const batch = new RecordBatch();
  for (const event of events) batch.add(event);
  return batch.take();
}

/**
 * Builds the stored form of a batch of a run's events while encoding each one once for the wire.
 * The record is a JSON array of the events, except that a stretch of plain content events of one
 * item (the deltas of a streamed message, reasoning or tool arguments) is one entry:
 *   {"$content":"TEXT_MESSAGE_CONTENT","id":"m1","deltas":["Hel","lo"],"times":[1767225600000,12]}
 * so a long streamed answer is stored at about a tenth of its events' JSON, and costs that much
 * less to deflate and write. `expandRecord` gives every event back exactly.
 */
export class RecordBatch {
  /** The encoder, for what it keeps of the last event (EventJsonEncoder.messagesJson). */
  readonly encoder = new EventJsonEncoder();
  private entries = "";
  private count = 0;
  // The open stretch: its first event's JSON (written as such when no second one joins it).
  private stretchType = "";
  private stretchItem = "";
  private stretchFirst = "";
  private stretchSize = 0;
  // The stretch's deltas (JSON) and times as the record's text, comma-separated, built as they come:
  // arrays joined at the end made a 20,000-delta run's record (flattened and encoded as the writer
  // does) take 3.2 ms against 2.8-2.9 (a number array's join converts every gap anew).
  private deltas = "";
  private times = "";
  private lastTime: number | undefined;

  /** Add an event to the batch; returns its JSON text (for the wire). */
  add(event: AGUIEvent): string {
    const json = this.encoder;
    const text = json.encode(event);
    this.count++;
    // Timestamps are kept as gaps, which is exact for integers only.
    const timed = json.timestamp !== undefined;
    if (!json.content || (timed && !Number.isSafeInteger(json.timestamp))) {
      this.closeStretch();
      this.entry(text);
    } else if (
      this.stretchSize > 0 &&
      json.type === this.stretchType &&
      json.item === this.stretchItem &&
      timed === (this.lastTime !== undefined)
    ) {
      this.stretchSize++;
      this.deltas += "," + json.deltaJson;
      if (timed) {
        this.times += "," + (json.timestamp! - this.lastTime!);
        this.lastTime = json.timestamp;
      }
    } else {
      this.closeStretch();
      this.stretchType = json.type;
      this.stretchItem = json.item;
      this.stretchFirst = text;
      this.stretchSize = 1;
      this.deltas = json.deltaJson;
      this.times = timed ? String(json.timestamp) : "";
      this.lastTime = json.timestamp;
    }
    return text;
  }

  /** The events added since the last take, as `count` and the record's JSON; undefined when none. */
  take(): { count: number; json: string } | undefined {
    this.closeStretch();
    if (!this.count) return undefined;
    const batch = { count: this.count, json: `[${this.entries}]` };
    this.entries = "";
    this.count = 0;
    return batch;
  }

  private entry(json: string): void {
    this.entries = this.entries ? `${this.entries},${json}` : json;
  }

  private closeStretch(): void {
    if (this.stretchSize === 1) this.entry(this.stretchFirst);
    else if (this.stretchSize > 1) {
      const times = this.lastTime === undefined ? "" : `,"times":[${this.times}]`;
      this.entry(
        `{"$content":${JSON.stringify(this.stretchType)},"id":${JSON.stringify(this.stretchItem)},"deltas":[${this.deltas}]${times}}`,
      );
    }
    this.stretchSize = 0;
    this.stretchFirst = "";
    this.deltas = "";
    this.times = "";
    this.lastTime = undefined;
  }
}

/** The events of a stored batch (see RecordBatch), in order. Throws on a malformed record. */
export function expandRecord(json: string): AGUIEvent[] {
  const entries = JSON.parse(json) as Array<AGUIEvent | ContentStretch>;
  const events: AGUIEvent[] = [];
  for (const entry of entries) {
    if (!("$content" in entry)) {
      events.push(entry);
      continue;
    }
    const idField = CONTENT_EVENTS.get(entry.$content);
    if (!idField || !Array.isArray(entry.deltas)) throw new Error(`Malformed run record entry for ${String(entry.$content)}`);
    let time = 0;
    entry.deltas.forEach((delta, i) => {
      const event: Record<string, unknown> = { type: entry.$content, [idField]: entry.id, delta };
      if (entry.times) event.timestamp = time = i === 0 ? entry.times[0]! : time + entry.times[i]!;
      events.push(event as unknown as AGUIEvent);
    });
  }
  return events;
}
