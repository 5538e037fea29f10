import type { BaseEvent, RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { AgentInputError, AgentStreamError } from "./errors";
import { EventGate } from "./event-gate";
import type { AGUIAgent, AgentClient, StreamOptions } from "./types";

/**
 * An AgentClient that runs an AGUIAgent in this process (tests, server-side callers). Events go
 * through the same checks as over HTTP. Cancelling aborts the signal handed to the agent and
 * returns its iterator, so the agent's `finally` blocks run.
 */
export class InProcessAGUIClient implements AgentClient {
  private readonly active = new Set<AbortController>();
  private closed = false;

  constructor(readonly agent: AGUIAgent) {}

  /**
   * Streams one run of the agent. Throws AgentInputError for an invalid input, AgentStreamError
   * on an early end or an event-order violation, whatever the agent throws, and the signal's
   * reason when cancelled.
   */
  async *stream(input: RunAgentInput, options: StreamOptions = {}): AsyncGenerator<BaseEvent, void, undefined> {
    if (this.closed) throw new AgentStreamError("closed", "The AG-UI client is closed");
    const checked = RunAgentInputSchema.safeParse(input);
    if (!checked.success) {
      throw new AgentInputError(checked.error.issues.map((issue) => ({ path: issue.path.join("/"), message: issue.message })));
    }
    const outer = options.signal;
    if (outer?.aborted) throw outer.reason;

    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener("abort", onOuterAbort, { once: true });
    this.active.add(controller);
    // Settles when the run is cancelled, so a pending `next()` of a busy agent does not hold us.
    const cancelled = new Promise<never>((_, reject) => {
      controller.signal.addEventListener(
        "abort",
        () => reject(outer?.aborted ? outer.reason : new AgentStreamError("closed", "The AG-UI client was closed during the run")),
        { once: true },
      );
    });
    cancelled.catch(() => undefined);

    const iterator = this.agent.run(checked.data, { signal: controller.signal })[Symbol.asyncIterator]();
    const gate = new EventGate("agent");
    let finished = false;
    try {
      for (;;) {
        const step = await Promise.race([iterator.next(), cancelled]);
        if (step.done) break;
        yield* gate.push(step.value);
        gate.throwIfBroken();
      }
      finished = true;
      yield* gate.end();
    } finally {
      outer?.removeEventListener("abort", onOuterAbort);
      this.active.delete(controller);
      controller.abort();
      if (!finished) iterator.return?.()?.catch(() => undefined);
    }
  }

  /** Cancels every run in flight and refuses new ones. Idempotent. */
  async aclose(): Promise<void> {
    this.closed = true;
    for (const controller of this.active) controller.abort();
    this.active.clear();
  }
}
