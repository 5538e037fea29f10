import type { ContentPart } from "@ag-ui/core";

/** A tool call's status as the console shows it. */
export type ToolCallStatus =
  | "streaming_args"
  | "running"
  | "awaiting_approval"
  | "succeeded"
  | "failed"
  | "denied"
  | "cancelled"
  /** Cut by a crash after it was approved: it may or may not have run. */
  | "unknown";

/** Why a call did not succeed: the executor's `{ kind, message }`, plus the reason a person gave. */
export interface ToolCallError {
  kind: string;
  message: string;
  reason?: string;
}

/** What a TOOL_CALL_RESULT (or a stored tool message) says about its call. */
export interface ToolOutcome {
  status: Extract<ToolCallStatus, "succeeded" | "failed" | "denied" | "cancelled" | "unknown">;
  result?: unknown;
  error?: ToolCallError;
}

const DENIED_KINDS = new Set(["denied"]);
const CANCELLED_KINDS = new Set(["cancelled", "approval_expired"]);

/**
 * Reads a tool result's content. The console's executor answers `{ok: true, value}` or
 * `{ok: false, error: {kind, message}}` as JSON text: `denied` gives the denied status,
 * `cancelled` and `approval_expired` the cancelled status, `outcome_unknown` the unknown status,
 * any other kind failed. Any other
 * content is a success whose result is the content as sent. A tool message's `error` field
 * (set by producers for a failed client tool) makes it a failure.
 */
export function readToolResult(content: string | ContentPart[], messageError?: string): ToolOutcome {
  if (typeof content === "string") {
    const parsed = parseJson(content);
    if (isRecord(parsed) && parsed.ok === true && "value" in parsed) return { status: "succeeded", result: parsed.value };
    if (isRecord(parsed) && parsed.ok === false && isRecord(parsed.error)) {
      const { kind, message, reason } = parsed.error;
      const error: ToolCallError = {
        kind: typeof kind === "string" ? kind : "failed",
        message: typeof message === "string" ? message : "The tool call failed",
      };
      if (typeof reason === "string") error.reason = reason;
      const status = DENIED_KINDS.has(error.kind)
        ? "denied"
        : CANCELLED_KINDS.has(error.kind)
          ? "cancelled"
          : error.kind === "outcome_unknown"
            ? "unknown"
            : "failed";
      return { status, error };
    }
  }
  if (messageError !== undefined) return { status: "failed", result: content, error: { kind: "failed", message: messageError } };
  return { status: "succeeded", result: content };
}

function parseJson(text: string): unknown {
  const first = text.trimStart()[0];
  if (first !== "{") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
