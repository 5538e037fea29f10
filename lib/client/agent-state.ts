import type { AGUIEvent, BaseEvent, ResumeEntry, RunAgentInput, Tool } from "@ag-ui/core";
import { randomUUID } from "@ag-ui/client";
import { AgentHTTPError, AgentStreamError } from "./errors";
import { toWireMessages } from "./history";
import { InProcessAGUIClient } from "./in-process-agui-client";
import { allAnswered, expiredApproval, resumeEntries, withAnswer } from "./interrupt-answers";
import type { AgentSnapshot, CustomEventRecord, InterruptAnswer } from "./snapshot";
import { ThreadModel, type ThreadData } from "./thread-model";
import type { AGUIAgent, AgentClient } from "./types";

export type { ThreadData };

/** The longest a run applies events before it gives the event loop a turn (ms). */
const SLICE_MS = 8;

export interface AgentStateOptions {
  /** Where runs go: an AgentClient, or an AGUIAgent that is wrapped in an InProcessAGUIClient. */
  client?: AgentClient;
  agent?: AGUIAgent;
  /** Defaults to a new UUID. */
  threadId?: string;
  /** Client tools offered to the agent on every run. */
  tools?: Tool[];
  /** Initial shared state (default `{}`). */
  state?: unknown;
  /** Called for every CUSTOM event, after it is recorded. Exceptions are logged and ignored. */
  onCustomEvent?: (event: CustomEventRecord) => void;
  /** Clock for tool-call timings (default Date.now). */
  now?: () => number;
}

/**
 * The console's view of one thread for `useSyncExternalStore`: a ThreadModel fed by the runs it
 * drives through its client (send, answer interrupts, retry, stop). `getSnapshot()` builds a new
 * small snapshot object once per change (see AgentSnapshot for what that means for readers).
 */
export class AgentState {
  readonly client: AgentClient;
  private readonly ownsClient: boolean;
  private readonly tools: Tool[];
  private readonly onCustomEvent?: (event: CustomEventRecord) => void;
  private readonly now: () => number;
  private readonly thread: ThreadModel;
  private threadId: string;

  private version = 0;
  private snapshot: AgentSnapshot | undefined;
  private readonly listeners = new Set<() => void>();
  private controller: AbortController | undefined;

  constructor(options: AgentStateOptions) {
    if (options.client) {
      this.client = options.client;
      this.ownsClient = false;
    } else if (options.agent) {
      this.client = new InProcessAGUIClient(options.agent);
      this.ownsClient = true;
    } else {
      throw new TypeError("AgentState needs a client or an agent");
    }
    this.threadId = options.threadId ?? randomUUID();
    this.tools = options.tools ?? [];
    this.onCustomEvent = options.onCustomEvent;
    this.now = options.now ?? Date.now;
    this.thread = new ThreadModel(options.state ?? {}, this.now);
  }

  // ---- useSyncExternalStore -------------------------------------------------------------

  /** Registers a listener called after every change; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** The current snapshot: the same object until something changes. */
  getSnapshot = (): AgentSnapshot => {
    if (this.snapshot) return this.snapshot;
    const { thread } = this;
    // Whatever this snapshot reaches must not change under its reader any more.
    thread.publish();
    this.snapshot = Object.freeze({
      version: this.version,
      threadId: this.threadId,
      runId: thread.runId,
      status: thread.status,
      currentStep: thread.openSteps.at(-1),
      messages: thread.messages,
      toolCalls: thread.toolCalls,
      state: thread.sharedState,
      customEvents: thread.customEvents,
      interrupts: thread.interrupts,
      error: thread.error,
    });
    return this.snapshot;
  };

  // ---- actions ----------------------------------------------------------------------------

  /**
   * Appends a user message and runs the agent; resolves when the run ends. Run and transport
   * failures land in the snapshot's `error`, not in the promise. Throws if a run is in progress
   * or interrupts are open (answer them with resolve/cancel instead).
   */
  async send(text: string): Promise<void> {
    this.assertIdle();
    if (this.thread.interrupts.length > 0) throw new Error("Answer the open interrupts (resolve or cancel) before sending a message");
    this.thread.putMessage({ id: randomUUID(), role: "user", content: text, streaming: false });
    this.changed();
    await this.run();
  }

  /**
   * Answers one open interrupt with a payload. Once every open interrupt has an answer, sends
   * one run whose `resume` covers them all, and resolves when it ends. Throws for an unknown
   * interrupt, or an expired one (those can only be cancelled).
   */
  async resolve(interruptId: string, payload?: unknown): Promise<void> {
    await this.answer(interruptId, payload === undefined ? { status: "resolved" } : { status: "resolved", payload });
  }

  /** Cancels one open interrupt (abandons it); like `resolve`, sends the resume once all are answered. */
  async cancel(interruptId: string): Promise<void> {
    await this.answer(interruptId, { status: "cancelled" });
  }

  /** Runs again after a failure: with the same history, and the resume again if the run answered interrupts. */
  async retry(): Promise<void> {
    this.assertIdle();
    const { interrupts } = this.thread;
    if (interrupts.length > 0 && !allAnswered(interrupts)) throw new Error("Answer every open interrupt before running again");
    await this.run(interrupts.length > 0 ? resumeEntries(interrupts) : undefined);
  }

  /** Stops the run in progress: aborts its stream and marks the run cancelled. No-op when idle. */
  stop(): void {
    const controller = this.controller;
    if (!controller) return;
    this.controller = undefined;
    controller.abort();
    this.thread.status = "cancelled";
    this.thread.settleOpenItems("cancelled");
    this.changed();
  }

  /** Replaces everything with a thread stored on the server: history, state and open interrupts. Stops a run in progress. */
  loadThread(thread: ThreadData): void {
    this.stop();
    if (thread.threadId) this.threadId = thread.threadId;
    this.thread.load(thread);
    this.changed();
  }

  /** Stops any run, and closes the client if this store created it. */
  async close(): Promise<void> {
    this.stop();
    if (this.ownsClient) await this.client.aclose();
  }

  // ---- events -----------------------------------------------------------------------------

  /** Applies one event (as an AgentClient yields them: validated against the AG-UI schemas, chunks expanded). */
  apply(event: BaseEvent): void {
    const typed = event as AGUIEvent;
    if (!this.thread.apply(typed)) return;
    this.changed();
    if (typed.type !== "CUSTOM") return;
    try {
      this.onCustomEvent?.(this.thread.customEvents.at(-1)!);
    } catch (err) {
      console.warn("[agent-state] onCustomEvent threw", { error: err instanceof Error ? err.message : String(err) });
    }
  }

  // ---- runs -------------------------------------------------------------------------------

  private async answer(interruptId: string, answer: InterruptAnswer): Promise<void> {
    this.thread.interrupts = withAnswer(this.thread.interrupts, interruptId, answer, new Date(this.now()));
    this.assertIdle();
    this.changed();
    if (!allAnswered(this.thread.interrupts)) return;
    // An approval given in time may have expired while the others were answered.
    const stale = expiredApproval(this.thread.interrupts, new Date(this.now()));
    if (stale) {
      this.thread.interrupts = this.thread.interrupts.map((open) => (open === stale ? { interrupt: open.interrupt } : open));
      this.changed();
      throw new Error(
        `Interrupt ${stale.interrupt.id} expired at ${stale.interrupt.expiresAt} before the resume was sent; it can only be cancelled`,
      );
    }
    await this.run(resumeEntries(this.thread.interrupts));
  }

  private async run(resume?: ResumeEntry[]): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    // The input hands the shared state to the client (an in-process agent may keep it): publish it.
    this.thread.publish();
    const input: RunAgentInput = {
      threadId: this.threadId,
      runId: randomUUID(),
      state: this.thread.sharedState,
      messages: toWireMessages(this.thread.messages, this.thread.toolCalls),
      tools: this.tools,
      context: [],
      forwardedProps: {},
      ...(resume ? { resume } : {}),
    };
    this.thread.beginRun();
    this.changed();
    try {
      let sliceStart = performance.now();
      for await (const event of this.client.stream(input, { signal: controller.signal })) {
        if (controller.signal.aborted) break;
        this.apply(event);
        if (performance.now() - sliceStart < SLICE_MS) continue;
        // Events that came in one chunk are applied in one task: after a backlog (a busy page, a
        // burst from the server) that can be hundreds. Let the page render and answer input between.
        await new Promise((resolve) => setTimeout(resolve, 0));
        sliceStart = performance.now();
      }
    } catch (err) {
      if (!controller.signal.aborted) this.fail(err);
    } finally {
      if (this.controller === controller) this.controller = undefined;
    }
  }

  private fail(err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    this.thread.fail({
      source: "transport",
      name: error.name,
      message: error.message,
      ...(error instanceof AgentHTTPError ? { status: error.status } : {}),
      ...(error instanceof AgentStreamError ? { reason: error.reason } : {}),
    });
    this.changed();
  }

  private assertIdle(): void {
    if (this.controller) throw new Error("A run is already in progress");
  }

  private changed(): void {
    this.version += 1;
    this.snapshot = undefined;
    for (const listener of this.listeners) listener();
  }
}
