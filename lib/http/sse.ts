import { utf8Bytes } from "../streams/utf8";

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

export interface SseOptions {
  /** A `: keepalive` comment after this long without a frame. */
  keepAliveMs?: number;
  /** Called when the reader goes away before the stream ended (a client disconnect). */
  onCancel?: () => void;
}

/** One SSE frame for any JSON value. */
export function jsonFrame(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/**
 * A byte stream of SSE text: each item of `source` is one or more ready frames, written as one
 * chunk. A `: keepalive` comment goes out after `keepAliveMs` without a write; when the reader
 * falls behind, the stream waits for it.
 */
export function sseBody(source: AsyncIterable<string>, options: SseOptions = {}): ReadableStream<Uint8Array> {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  let demand: (() => void) | undefined;
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const keepAlive = (): void => {
        // A reader that is behind has frames to read: a comment would only pile up behind them.
        if ((controller.desiredSize ?? 1) > 0) write(": keepalive\n\n");
        else timer = setTimeout(keepAlive, keepAliveMs);
      };
      const write = (chunk: string): void => {
        if (finished) return;
        controller.enqueue(utf8Bytes(chunk));
        clearTimeout(timer);
        timer = setTimeout(keepAlive, keepAliveMs);
      };
      const end = (error?: unknown): void => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        if (error === undefined) controller.close();
        else controller.error(error);
      };
      timer = setTimeout(keepAlive, keepAliveMs);
      void (async () => {
        try {
          for await (const chunk of source) {
            if (finished) break;
            write(chunk);
            if ((controller.desiredSize ?? 1) <= 0) await new Promise<void>((resolve) => (demand = resolve));
          }
          end();
        } catch (error) {
          end(error);
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
