import { EventType, type AGUIEvent } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";

// Built with no Accept: given `*/*` it would pick protobuf while encodeSSE still writes text.
const encoder = new EventEncoder();

/** One SSE frame (`data: <json>\n\n`, LF only) for an event, as the protocol's own encoder writes it. */
export function encodeFrame(event: AGUIEvent): string {
  return encoder.encodeSSE(event);
}

/**
 * True when the request comes from a client older than AG-UI 1.0: such clients (for example
 * @ag-ui/client 0.0.59, which CopilotKit 1.74 ships) send no protocolVersion.
 */
export function isPre10Client(body: unknown): boolean {
  return typeof body === "object" && body !== null && !("protocolVersion" in body);
}

/** True for the few events a pre-1.0 client needs in another form (see toPre10). */
export function needsDowngrade(event: AGUIEvent): boolean {
  return event.type === EventType.RUN_STARTED || event.type === EventType.RUN_FINISHED;
}

/**
 * An event as a pre-1.0 client accepts it: their schemas refuse the `cancelled` outcome and
 * `pendingToolCallIds`, so a cancelled run becomes RUN_ERROR (never success) and the pending ids
 * are dropped (such clients derive them from unanswered calls).
 */
export function toPre10(event: AGUIEvent): AGUIEvent {
  if (event.type === EventType.RUN_STARTED && "protocolVersion" in event) {
    const { protocolVersion: _dropped, ...rest } = event;
    return rest as AGUIEvent;
  }
  if (event.type !== EventType.RUN_FINISHED || !event.outcome) return event;
  if (event.outcome.type === "cancelled")
    return { type: EventType.RUN_ERROR, message: "The run was cancelled", code: "cancelled", timestamp: event.timestamp } as AGUIEvent;
  if (event.outcome.type === "success" && "pendingToolCallIds" in event.outcome) return { ...event, outcome: { type: "success" } };
  return event;
}
