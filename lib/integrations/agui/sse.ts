import type { AGUIEvent } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";

/**
 * Headers of every event stream. `no-transform` keeps Next.js (and proxies) from compressing the
 * stream, which buffered it and measured about 40 times slower; `x-accel-buffering: no` does the
 * same for nginx.
 */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  connection: "keep-alive",
});

// Built with no Accept: given `*/*` it would pick protobuf while encodeSSE still writes text.
const encoder = new EventEncoder();

/** One SSE frame (`data: <json>\n\n`, LF only) for an event. */
export function encodeFrame(event: AGUIEvent): string {
  return encoder.encodeSSE(event);
}

export interface SseOptions {
  /** A `: keepalive` comment after this long without a frame. */
  keepAliveMs?: number;
  /** Called when the reader goes away before the stream ended (a client disconnect). */
  onCancel?: () => void;
}

/**
 * A byte stream of SSE frames for `source`. Events that are ready together are written as one
 * chunk; when the reader falls behind, the stream waits for it.
 */
export function sseBody<T>(source: AsyncIterable<T>, frame: (item: T) => string, options: SseOptions = {}): ReadableStream<Uint8Array> {
  const text = new TextEncoder();
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  let iterator: AsyncIterator<T> | undefined;
  let demand: (() => void) | undefined;
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  return new ReadableStream<Uint8Array>({
    start(controller) {
      let pending = "";
      let scheduled = false;
      const write = (chunk: string): void => {
        if (finished) return;
        controller.enqueue(text.encode(chunk));
        armKeepAlive();
      };
      const armKeepAlive = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => write(": keepalive\n\n"), keepAliveMs);
      };
      const flush = (): void => {
        scheduled = false;
        if (!pending) return;
        const chunk = pending;
        pending = "";
        write(chunk);
      };
      armKeepAlive();
      void (async () => {
        try {
          iterator = source[Symbol.asyncIterator]();
          for (;;) {
            const next = await iterator.next();
            if (next.done || finished) break;
            pending += frame(next.value);
            if (!scheduled) {
              scheduled = true;
              setImmediate(flush);
            }
            if ((controller.desiredSize ?? 1) <= 0) await new Promise<void>((resolve) => (demand = resolve));
          }
          flush();
          if (!finished) {
            finished = true;
            clearTimeout(timer);
            controller.close();
          }
        } catch (error) {
          if (!finished) {
            finished = true;
            clearTimeout(timer);
            controller.error(error);
          }
        }
      })();
    },
    pull() {
      const resolve = demand;
      demand = undefined;
      resolve?.();
    },
    cancel() {
      finished = true;
      clearTimeout(timer);
      const resolve = demand;
      demand = undefined;
      resolve?.();
      options.onCancel?.();
    },
  });
}
