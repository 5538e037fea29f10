import type { Issue } from "../errors";
import { freshTurn, turnAvailable, turnSpent } from "../streams/turn-budget";

/** The body every 4xx and 5xx answer of the console's own API carries. */
export interface ErrorBody {
  error: { code: string; message: string; issues?: Issue[] };
}

/** A JSON response with `no-store` caching. */
export function json(body: unknown, init: ResponseInit = {}): Response {
  return new Response(JSON.stringify(body), { ...init, headers: jsonHeaders(init.headers) });
}

function jsonHeaders(given: HeadersInit | undefined): Headers {
  const headers = new Headers(given);
  headers.set("content-type", "application/json; charset=utf-8");
  if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
  return headers;
}

/**
 * A JSON response of `head` with a list under `key` that may run to thousands of entries: the list
 * is written a slice at a time, each within the event loop's turn budget
 * (lib/streams/turn-budget.ts), so the answer never holds the loop for the whole of it. `each`
 * gives the list's entry for an item, in the same slices. `no-store` caching, as json's. Throws
 * TypeError when `head` holds `key` too.
 */
export function jsonWithList<T>(
  head: Record<string, unknown>,
  key: string,
  items: readonly T[],
  each: (item: T) => unknown,
  init: ResponseInit = {},
): Response {
  // Written twice, the key would be read back as the head's (a JSON reader keeps the last).
  if (head[key] !== undefined) throw new TypeError(`jsonWithList: the head already holds "${key}"`);
  const rest = JSON.stringify(head);
  const open = `{${JSON.stringify(key)}:[`;
  const close = rest === "{}" ? "]}" : `],${rest.slice(1)}`;
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      // The first slice in a turn of its own: the work that made the answer may have used this one.
      await (next === 0 ? freshTurn() : turnAvailable());
      let text = next === 0 ? open : "";
      while (next < items.length) {
        text += (next ? "," : "") + JSON.stringify(each(items[next++]!));
        if (turnSpent()) break;
      }
      if (next >= items.length) text += close;
      controller.enqueue(encoder.encode(text));
      if (next >= items.length) controller.close();
    },
  });
  return new Response(body, { ...init, headers: jsonHeaders(init.headers) });
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
