import type { OutboundGuard } from "../../net";
import { ERROR_BODY_BYTES, RemoteAgentFailure, shown } from "./remote-failure";

export interface GatedFetchOptions {
  guard: OutboundGuard;
  /** The most a run's event stream may weigh, in bytes. */
  maxBytes: number;
  /** Called on every chunk the remote sends (an idle timer is reset there). */
  onBytes: () => void;
  /** Resolves when the console may take more from the remote (the local reader keeps up). */
  room: () => Promise<void>;
}

/**
 * The fetch a remote agent's HttpAgent uses: through the outbound guard (no redirect followed),
 * reading an error answer only up to ERROR_BODY_BYTES, refusing an answer that is no event stream,
 * and handing the stream's bytes on only while the console's reader keeps up (so a slow chat slows
 * the remote's socket rather than filling memory), up to `maxBytes`.
 */
export function gatedFetch(options: GatedFetchOptions): (url: string, init: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const response = await options.guard.fetch(url, init);
    if (!response.ok) {
      // @ag-ui/client reads the whole error body: give it a bounded copy.
      const text = await readPrefix(response, ERROR_BODY_BYTES);
      return new Response(text, {
        status: response.status,
        headers: { "content-type": response.headers.get("content-type") ?? "text/plain" },
      });
    }
    const type = response.headers.get("content-type") ?? "";
    if (!/^text\/event-stream\b/i.test(type) || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw new RemoteAgentFailure(
        "remote_bad_stream",
        `The remote agent at ${shown(url)} answered ${type ? `"${type.slice(0, 80)}"` : "with no content type"}, not an AG-UI event stream (text/event-stream).`,
      );
    }
    let bytes = 0;
    const gate = new TransformStream<Uint8Array, Uint8Array>({
      transform: async (chunk, controller) => {
        bytes += chunk.byteLength;
        if (bytes > options.maxBytes)
          throw new RemoteAgentFailure(
            "remote_bad_stream",
            `The remote agent at ${shown(url)} sent more than ${Math.round(options.maxBytes / 1024 / 1024)} MB in one run; the console stopped reading.`,
          );
        options.onBytes();
        await options.room();
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(gate), { status: response.status, headers: response.headers });
  };
}

/** The first `limit` bytes of a body as text; the rest is not read. */
async function readPrefix(response: Response, limit: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit));
}
