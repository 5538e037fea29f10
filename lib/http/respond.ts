import type { Issue } from "../errors";

/** The body every 4xx and 5xx answer of the console's own API carries. */
export interface ErrorBody {
  error: { code: string; message: string; issues?: Issue[] };
}

/** A JSON response with `no-store` caching. */
export function json(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json; charset=utf-8");
  if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
  return new Response(JSON.stringify(body), { ...init, headers });
}

/** Longest message an error answer carries: messages quote what was asked for, which may be huge. */
export const MAX_ERROR_MESSAGE = 500;
/** Most issues an error answer lists. */
export const MAX_ERROR_ISSUES = 50;

const clip = (text: string) => (text.length > MAX_ERROR_MESSAGE ? `${text.slice(0, MAX_ERROR_MESSAGE)}…` : text);

/**
 * An error answer: `{ error: { code, message, issues } }` with the given status. Messages are cut
 * at MAX_ERROR_MESSAGE characters and issues at MAX_ERROR_ISSUES, so an answer never grows with
 * the request that caused it (a 70,000-character id is not sent back whole).
 */
export function errorResponse(status: number, code: string, message: string, issues?: readonly Issue[], headers?: HeadersInit): Response {
  const listed = issues?.slice(0, MAX_ERROR_ISSUES).map((issue) => ({ ...issue, path: clip(issue.path), message: clip(issue.message) }));
  return json({ error: { code, message: clip(message), ...(listed && listed.length ? { issues: listed } : {}) } } satisfies ErrorBody, {
    status,
    headers,
  });
}
