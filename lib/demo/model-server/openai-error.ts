import type { ServerResponse } from "node:http";
import { sendJson, type ScriptedFailure } from "./script";

/**
 * The `type` and `code` OpenAI puts in an error body for a status (both APIs use the same body).
 * The SDK builds its APIError subclass from the status and quotes `message`.
 */
function kindOf(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" };
  if (status === 403) return { type: "permission_error", code: null };
  if (status === 404) return { type: "invalid_request_error", code: "model_not_found" };
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded" };
  if (status >= 500) return { type: "server_error", code: null };
  return { type: "invalid_request_error", code: null };
}

/** OpenAI's error body: `{ error: { message, type, param, code } }`, the type and code as for `status`. */
export function openAIErrorBody(
  status: number,
  message: string,
): { error: { message: string; type: string; param: null; code: string | null } } {
  return { error: { message, ...kindOf(status), param: null } };
}

/** Answer with `failure` as OpenAI does: its status and the error body. */
export function sendOpenAIError(failure: ScriptedFailure, res: ServerResponse): void {
  sendJson(res, failure.error.status, openAIErrorBody(failure.error.status, failure.error.message));
}
