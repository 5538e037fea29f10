import type { OutboundGuard } from "../../net";
import { readCappedText } from "../../http/read-capped";
import { A2AAgentUnreachable } from "./import-errors";

/** An agent's answer longer than this (card, task, result) is refused rather than held. */
export const MAX_A2A_RESPONSE_BYTES = 4 * 1024 * 1024;
/** A request without a signal of its own (a card, a cancel) gives up after this long. */
export const A2A_REQUEST_TIMEOUT_MS = 30_000;

export interface A2AFetchOptions {
  /** Every request goes through it: private addresses only where it allows them. */
  outbound: OutboundGuard;
  /** The agent's origin: the only one that gets `headers`. */
  origin: string;
  /** Secret headers (Authorization...), sent to `origin` and nowhere else. */
  headers?: Record<string, string>;
  maxResponseBytes?: number;
  timeoutMs?: number;
}

/**
 * A `fetch` for the A2A SDK's client that reaches the agent only through the outbound guard, adds
 * the source's secret headers only on requests to the agent's own origin (an interface the card
 * puts elsewhere gets none), follows no redirect, and reads every answer whole up to the byte cap
 * before the SDK sees it. Throws A2AAgentUnreachable for an answer over the cap, AddressNotAllowed
 * for a refused address, and what `fetch` throws otherwise.
 */
export function a2aFetch(options: A2AFetchOptions): typeof fetch {
  const cap = options.maxResponseBytes ?? MAX_A2A_RESPONSE_BYTES;
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init.headers);
    if (url.origin === options.origin) for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    else {
      headers.delete("authorization");
      headers.delete("cookie");
    }
    const signal = init.signal ?? AbortSignal.timeout(options.timeoutMs ?? A2A_REQUEST_TIMEOUT_MS);
    const response = await options.outbound.fetch(url, { ...init, headers, signal });
    const read = await readCappedText(response.body, cap, { declaredLength: response.headers.get("content-length"), strictUtf8: false });
    if (!read.ok) throw new A2AAgentUnreachable(`${url.origin} answered more than ${cap} bytes`);
    // The body was consumed: the SDK gets the same status and headers over the text that was read.
    const kept = new Headers(response.headers);
    kept.delete("content-length");
    kept.delete("content-encoding");
    return new Response(response.status === 204 || response.status === 304 ? null : read.text, {
      status: response.status,
      statusText: response.statusText,
      headers: kept,
    });
  };
}
