import type { BaseEvent, RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { AgentHTTPError, AgentInputError, AgentStreamError } from "./errors";
import { EventGate } from "./event-gate";
import { SseParser } from "./sse-parser";
import type { AgentClient, StreamOptions } from "./types";

export type HeadersSource = Record<string, string> | (() => Record<string, string>);

export interface HttpAGUIClientOptions {
  /** Sent with every run; a function is called before each run. Never logged, stored in errors or kept after the request. */
  headers?: HeadersSource;
  /** Read timeout: the longest wait for the response or its next bytes (default 60 s). */
  timeoutMs?: number;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
}

const DEBUG_BODY_LIMIT = 1024;

/**
 * An AgentClient for any AG-UI server over HTTP + SSE: one POST per run with the RunAgentInput
 * as JSON, one event per SSE `data:` field. One instance can serve every session.
 */
export class HttpAGUIClient implements AgentClient {
  private readonly headers: HeadersSource | undefined;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly active = new Set<AbortController>();
  private closed = false;

  constructor(
    readonly url: string,
    options: HttpAGUIClientOptions = {},
  ) {
    this.headers = options.headers;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /**
   * Streams one run. Throws AgentInputError before sending an invalid input, AgentHTTPError on a
   * non-2xx answer, AgentStreamError on a wrong content type, a read timeout, an early end or an
   * event-order violation, and the signal's reason when cancelled.
   */
  async *stream(input: RunAgentInput, options: StreamOptions = {}): AsyncGenerator<BaseEvent, void, undefined> {
    if (this.closed) throw new AgentStreamError("closed", "The AG-UI client is closed");
    const checked = RunAgentInputSchema.safeParse(input);
    if (!checked.success) {
      throw new AgentInputError(checked.error.issues.map((issue) => ({ path: issue.path.join("/"), message: issue.message })));
    }

    const controller = new AbortController();
    const outer = options.signal;
    const onOuterAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) throw outer.reason;
    outer?.addEventListener("abort", onOuterAbort, { once: true });
    this.active.add(controller);

    // The read timeout runs only while we wait on the network (not while the consumer handles an
    // event): it aborts the request, and the abort is reported as a timeout.
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, this.timeoutMs);
    };
    const disarm = () => clearTimeout(timer);
    const failure = (err: unknown): unknown => {
      if (timedOut) return new AgentStreamError("timeout", `No bytes from the agent endpoint within ${this.timeoutMs} ms`);
      if (outer?.aborted) return outer.reason;
      if (controller.signal.aborted) return new AgentStreamError("closed", "The AG-UI client was closed during the run");
      return err;
    };

    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      arm();
      let response: Response;
      try {
        const headers = new Headers(this.resolveHeaders());
        headers.set("Content-Type", "application/json");
        headers.set("Accept", "text/event-stream");
        response = await this.fetchImpl(this.url, {
          method: "POST",
          headers,
          body: JSON.stringify(checked.data),
          signal: controller.signal,
        });
      } catch (err) {
        throw failure(err);
      } finally {
        disarm();
      }

      if (!response.ok) {
        await logErrorBody(response);
        throw new AgentHTTPError(response.status);
      }
      const contentType = response.headers.get("content-type") ?? "";
      if (!/^text\/event-stream\s*(;|$)/i.test(contentType) || !response.body) {
        await response.body?.cancel().catch(() => undefined);
        throw new AgentStreamError("content_type", `Expected text/event-stream, got ${contentType.split(";")[0] || "no content type"}`);
      }

      reader = response.body.getReader();
      const parser = new SseParser();
      const gate = new EventGate("agent endpoint");
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        arm();
        try {
          chunk = await reader.read();
        } catch (err) {
          // A server may keep the connection open after the last run ended: that is not an error.
          if (timedOut && gate.complete) return;
          throw failure(err);
        } finally {
          disarm();
        }
        if (chunk.done) break;
        let frames: string[];
        try {
          frames = parser.push(chunk.value);
        } catch (err) {
          throw new AgentStreamError("protocol", (err as Error).message);
        }
        yield* eventsOf(gate, frames);
      }
      yield* eventsOf(gate, parser.end());
      yield* gate.end();
    } finally {
      disarm();
      outer?.removeEventListener("abort", onOuterAbort);
      this.active.delete(controller);
      // Aborting the request closes the socket: the upstream sees the cancel at once.
      controller.abort();
      reader?.cancel().catch(() => undefined);
    }
  }

  /** Aborts every stream in flight and refuses new ones. Idempotent. */
  async aclose(): Promise<void> {
    this.closed = true;
    for (const controller of this.active) controller.abort();
    this.active.clear();
  }

  private resolveHeaders(): Record<string, string> {
    const source = this.headers;
    return typeof source === "function" ? source() : (source ?? {});
  }
}

/** The events in some SSE payloads; a payload that is not JSON is skipped with a warning. */
function* eventsOf(gate: EventGate, frames: string[]): Generator<BaseEvent> {
  for (const frame of frames) {
    let raw: unknown;
    try {
      raw = JSON.parse(frame);
    } catch {
      console.warn("[agui-client] skipped an SSE event that is not JSON", { length: frame.length });
      continue;
    }
    yield* gate.push(raw);
    gate.throwIfBroken();
  }
}

async function logErrorBody(response: Response): Promise<void> {
  let body = "";
  try {
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    while (reader && body.length < DEBUG_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      body += decoder.decode(value, { stream: true });
    }
    await reader?.cancel().catch(() => undefined);
  } catch {
    // The body is a debugging aid only.
  }
  console.debug("[agui-client] the agent endpoint refused the run", { status: response.status, body: body.slice(0, DEBUG_BODY_LIMIT) });
}
