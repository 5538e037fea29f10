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

/** An error answer: `{ error: { code, message, issues } }` with the given status. */
export function errorResponse(status: number, code: string, message: string, issues?: readonly Issue[], headers?: HeadersInit): Response {
  return json({ error: { code, message, ...(issues && issues.length ? { issues: [...issues] } : {}) } } satisfies ErrorBody, {
    status,
    headers,
  });
}
