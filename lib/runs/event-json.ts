import { EventType, type AGUIEvent } from "@ag-ui/core";

export type ContentIdField = "messageId" | "toolCallId";

/**
 * The streamed-content events a run sends by the thousand, each naming its item (a message, a
 * tool call) and carrying one `delta` string.
 */
export const CONTENT_EVENTS: ReadonlyMap<string, ContentIdField> = new Map([
  [EventType.TEXT_MESSAGE_CONTENT, "messageId"],
  [EventType.TOOL_CALL_ARGS, "toolCallId"],
  [EventType.REASONING_MESSAGE_CONTENT, "messageId"],
]);

/**
 * Encodes a run's events as JSON, once each. The output parses to the same value as
 * `JSON.stringify(event)`; a content event that holds only its type, item id, delta and timestamp
 * is built from a per-item prefix instead, because `JSON.stringify` walks every object afresh and
 * was three quarters of the endpoint's time on a 20,000-delta run. After each `encode`,
 * `content` says whether that event took this path, with its parts (for the compact record).
 * One encoder per run: it remembers the last item's prefix.
 */
export class EventJsonEncoder {
  /** True when the last event encoded was a plain content event; the fields below describe it. */
  content = false;
  type = "";
  item = "";
  /** The delta as JSON text (quoted and escaped). */
  deltaJson = "";
  timestamp: number | undefined;
  /**
   * The messages of the last MESSAGES_SNAPSHOT encoded, as JSON: a run's last snapshot is also
   * its thread's conversation, which is then stored without serialising it a second time.
   */
  messagesJson: string | undefined;
  private prefix = "";

  encode(event: AGUIEvent): string {
    this.content = false;
    if (event.type === EventType.MESSAGES_SNAPSHOT) return this.snapshot(event as unknown as Record<string, unknown>);
    const idField = CONTENT_EVENTS.get(event.type);
    if (!idField) return JSON.stringify(event);
    const fields = event as unknown as Record<string, unknown>;
    const item = fields[idField];
    const delta = fields.delta;
    const timestamp = fields.timestamp;
    if (typeof item !== "string" || typeof delta !== "string" || Object.getPrototypeOf(event) !== Object.prototype)
      return JSON.stringify(event);
    // Exactly these keys (an undefined timestamp is left out, as JSON.stringify does); anything
    // else (rawEvent, a vendor field), or a timestamp that is not a finite number, takes the
    // general path.
    for (const key in fields) if (key !== "type" && key !== idField && key !== "delta" && key !== "timestamp") return JSON.stringify(event);
    if (timestamp !== undefined && (typeof timestamp !== "number" || !Number.isFinite(timestamp))) return JSON.stringify(event);
    if (event.type !== this.type || item !== this.item) {
      this.type = event.type;
      this.item = item;
      this.prefix = `{"type":${JSON.stringify(event.type)},"${idField}":${JSON.stringify(item)},"delta":`;
    }
    this.content = true;
    this.deltaJson = JSON.stringify(delta);
    this.timestamp = timestamp;
    // A finite number prints the same in JSON and in JavaScript.
    return timestamp === undefined ? `${this.prefix}${this.deltaJson}}` : `${this.prefix}${this.deltaJson},"timestamp":${timestamp}}`;
  }

  private snapshot(event: Record<string, unknown>): string {
    this.messagesJson = undefined;
    const timestamp = event.timestamp;
    if (Object.getPrototypeOf(event) !== Object.prototype || !Array.isArray(event.messages)) return JSON.stringify(event);
    for (const key in event) if (key !== "type" && key !== "messages" && key !== "timestamp") return JSON.stringify(event);
    if (timestamp !== undefined && (typeof timestamp !== "number" || !Number.isFinite(timestamp))) return JSON.stringify(event);
    this.messagesJson = JSON.stringify(event.messages);
    return `{"type":"${EventType.MESSAGES_SNAPSHOT}","messages":${this.messagesJson}${timestamp === undefined ? "" : `,"timestamp":${timestamp}`}}`;
  }
}
