import type { ToolResult } from "../execution/result";

/** A result as the text a model reads: strings as they are, other values as JSON, errors as `{error:{kind,message}}`. */
export function resultText(result: ToolResult): string {
  if (result.ok) return typeof result.value === "string" ? result.value : JSON.stringify(result.value);
  return JSON.stringify({ error: { kind: result.error.kind, message: result.error.message } });
}
