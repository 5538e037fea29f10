import {
  type BaseEvent,
  type CustomEvent,
  EventType,
  type Interrupt,
  type Message,
  type MessagesSnapshotEvent,
  type ReasoningMessageContentEvent,
  type ReasoningMessageStartEvent,
  type ResumeEntry,
  type RunAgentInput,
  type RunErrorEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type StateDeltaEvent,
  type StateSnapshotEvent,
  type StepFinishedEvent,
  type StepStartedEvent,
  type TextMessageContentEvent,
  type TextMessageEndEvent,
  type TextMessageStartEvent,
  type Tool,
  type ToolCallArgsEvent,
  type ToolCallEndEvent,
  type ToolCallResultEvent,
  type ToolCallStartEvent,
} from "@ag-ui/core";
import { buildResumeArray, isInterruptExpired, randomUUID } from "@ag-ui/client";
import { applyPatch, type Operation } from "fast-json-patch";
import { AgentHTTPError, AgentStreamError } from "./errors";
import { fromWireMessage, toWireMessages } from "./history";
import { InProcessAGUIClient } from "./in-process-agui-client";
import type {
  AgentErrorInfo,
  AgentSnapshot,
  ChatMessage,
  CustomEventRecord,
  InterruptAnswer,
  OpenInterrupt,
  RunStatus,
  ToolCallView,
} from "./snapshot";
import { readToolResult, type ToolOutcome } from "./tool-result";
import type { AGUIAgent, AgentClient } from "./types";

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

/** What `loadThread` hydrates from: the server's stored thread. */
export interface ThreadData {
  threadId?: string;
  messages: Message[];
  state?: unknown;
  /** The interrupts of the thread's last run, when it ended waiting for a person. */
  interrupts?: Interrupt[];
}

const CUSTOM_EVENTS_KEPT = 500;

/**
 * The console's view of one thread, fed by AG-UI events, for `useSyncExternalStore`.
 *
 * Work per event is O(1) in the length of the thread: messages live in one array with an
 * id → index map and tool calls in one Map, both updated in place; an event replaces only the
 * entry it changes with a new object, and bumps `version`. `getSnapshot()` builds a new small
 * snapshot object once per version (see AgentSnapshot for what that means for readers).
 * Only MESSAGES_SNAPSHOT, `loadThread` and starting a run walk the whole thread.
 */
export class AgentState {
  readonly client: AgentClient;
  private readonly ownsClient: boolean;
  private readonly tools: Tool[];
  private readonly onCustomEvent?: (event: CustomEventRecord) => void;
  private readonly now: () => number;

  private threadId: string;
  private runId: string | undefined;
  private status: RunStatus = "idle";
  private readonly openSteps: string[] = [];
  private messages: ChatMessage[] = [];
  private positions = new Map<string, number>();
  private readonly toolCalls = new Map<string, ToolCallView>();
  /** Tool calls still streaming or running, so ending a run touches only those. */
  private readonly unsettledCalls = new Set<string>();
  /** Messages still streaming. */
  private readonly streamingMessages = new Set<string>();
  private sharedState: unknown;
  private readonly customEvents: CustomEventRecord[] = [];
  private interrupts: OpenInterrupt[] = [];
  private error: AgentErrorInfo | undefined;

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
    this.sharedState = options.state ?? {};
    this.onCustomEvent = options.onCustomEvent;
    this.now = options.now ?? Date.now;
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
    this.snapshot ??= Object.freeze({
      version: this.version,
      threadId: this.threadId,
      runId: this.runId,
      status: this.status,
      currentStep: this.openSteps.at(-1),
      messages: this.messages,
      toolCalls: this.toolCalls,
      state: this.sharedState,
      customEvents: this.customEvents,
      interrupts: this.interrupts,
      error: this.error,
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
    if (this.interrupts.length > 0) throw new Error("Answer the open interrupts (resolve or cancel) before sending a message");
    this.putMessage({ id: randomUUID(), role: "user", content: text, streaming: false });
    this.changed();
    await this.run();
  }

  /**
   * Answers one open interrupt with a payload. Once every open interrupt has an answer, sends
   * one run whose `resume` covers them all, and resolves when it ends. Throws for an unknown
   * interrupt, or an expired one (those can only be cancelled).
   */
  async resolve(interruptId: string, payload?: unknown): Promise<void> {
    const open = this.openInterrupt(interruptId);
    if (isInterruptExpired(open.interrupt, new Date(this.now()))) {
      throw new Error(`Interrupt ${interruptId} expired at ${open.interrupt.expiresAt}; it can only be cancelled`);
    }
    await this.answer(interruptId, payload === undefined ? { status: "resolved" } : { status: "resolved", payload });
  }

  /** Cancels one open interrupt (abandons it); like `resolve`, sends the resume once all are answered. */
  async cancel(interruptId: string): Promise<void> {
    this.openInterrupt(interruptId);
    await this.answer(interruptId, { status: "cancelled" });
  }

  /** Runs again after a failure: with the same history, and the resume again if the run answered interrupts. */
  async retry(): Promise<void> {
    this.assertIdle();
    if (this.interrupts.length > 0 && this.interrupts.some((open) => !open.answer)) {
      throw new Error("Answer every open interrupt before running again");
    }
    await this.run(this.interrupts.length > 0 ? this.resumeEntries() : undefined);
  }

  /** Stops the run in progress: aborts its stream and marks the run cancelled. No-op when idle. */
  stop(): void {
    const controller = this.controller;
    if (!controller) return;
    this.controller = undefined;
    controller.abort();
    this.status = "cancelled";
    this.settleOpenItems("cancelled");
    this.changed();
  }

  /** Replaces everything with a thread stored on the server: history, state and open interrupts. Stops a run in progress. */
  loadThread(thread: ThreadData): void {
    this.stop();
    if (thread.threadId) this.threadId = thread.threadId;
    this.runId = undefined;
    this.openSteps.length = 0;
    this.toolCalls.clear();
    this.unsettledCalls.clear();
    this.streamingMessages.clear();
    this.customEvents.length = 0;
    this.error = undefined;
    this.sharedState = thread.state ?? {};
    this.replaceMessages(thread.messages.flatMap((message) => fromWireMessage(message) ?? []), thread.messages);
    const interrupts = thread.interrupts ?? [];
    this.openInterrupts(interrupts);
    // A call with neither a result nor an open interrupt belongs to a run that is over.
    for (const id of [...this.unsettledCalls]) {
      const call = this.toolCalls.get(id);
      if (call && call.status !== "awaiting_approval") this.putToolCall({ ...call, status: "cancelled" });
      this.unsettledCalls.delete(id);
    }
    this.status = interrupts.length > 0 ? "awaiting_input" : "idle";
    this.changed();
  }

  /** Stops any run, and closes the client if this store created it. */
  async close(): Promise<void> {
    this.stop();
    if (this.ownsClient) await this.client.aclose();
  }

  // ---- events -----------------------------------------------------------------------------

  /** Applies one event (as an AgentClient yields them: validated, chunks expanded). */
  apply(event: BaseEvent): void {
    switch (event.type) {
      case EventType.RUN_STARTED:
        return this.onRunStarted(event as RunStartedEvent);
      case EventType.RUN_FINISHED:
        return this.onRunFinished(event as RunFinishedEvent);
      case EventType.RUN_ERROR:
        return this.onRunError(event as RunErrorEvent);
      case EventType.STEP_STARTED:
        this.openSteps.push((event as StepStartedEvent).stepName);
        return this.changed();
      case EventType.STEP_FINISHED: {
        const index = this.openSteps.lastIndexOf((event as StepFinishedEvent).stepName);
        if (index !== -1) this.openSteps.splice(index, 1);
        return this.changed();
      }
      case EventType.TEXT_MESSAGE_START: {
        const { messageId, role, name } = event as TextMessageStartEvent;
        return this.startMessage(messageId, role ?? "assistant", name);
      }
      case EventType.TEXT_MESSAGE_CONTENT: {
        const { messageId, delta } = event as TextMessageContentEvent;
        return this.appendText(messageId, delta);
      }
      case EventType.TEXT_MESSAGE_END:
      case EventType.REASONING_MESSAGE_END:
        return this.endMessage((event as TextMessageEndEvent).messageId);
      case EventType.REASONING_MESSAGE_START:
        return this.startMessage((event as ReasoningMessageStartEvent).messageId, "reasoning");
      case EventType.REASONING_MESSAGE_CONTENT: {
        const { messageId, delta } = event as ReasoningMessageContentEvent;
        return this.appendText(messageId, delta);
      }
      case EventType.TOOL_CALL_START:
        return this.onToolCallStart(event as ToolCallStartEvent);
      case EventType.TOOL_CALL_ARGS:
        return this.onToolCallArgs(event as ToolCallArgsEvent);
      case EventType.TOOL_CALL_END:
        return this.onToolCallEnd(event as ToolCallEndEvent);
      case EventType.TOOL_CALL_RESULT:
        return this.onToolCallResult(event as ToolCallResultEvent);
      case EventType.STATE_SNAPSHOT:
        this.sharedState = (event as StateSnapshotEvent).snapshot;
        return this.changed();
      case EventType.STATE_DELTA:
        return this.onStateDelta(event as StateDeltaEvent);
      case EventType.MESSAGES_SNAPSHOT:
        return this.onMessagesSnapshot(event as MessagesSnapshotEvent);
      case EventType.CUSTOM:
        return this.onCustom(event as CustomEvent);
      case EventType.REASONING_START:
      case EventType.REASONING_END:
      case EventType.REASONING_ENCRYPTED_VALUE:
      case EventType.ACTIVITY_SNAPSHOT:
      case EventType.ACTIVITY_DELTA:
      case EventType.SUBAGENT_STARTED:
      case EventType.SUBAGENT_FINISHED:
      case EventType.SUBAGENT_ERROR:
      case EventType.RAW:
        // Accepted with no visible change; encrypted reasoning stays on the server.
        return;
      default:
        console.debug("[agent-state] skipped an event it does not apply", { type: event.type });
    }
  }

  private onRunStarted(event: RunStartedEvent): void {
    this.runId = event.runId;
    this.status = "running";
    this.openSteps.length = 0;
    this.error = undefined;
    // The run that starts now carries the answers: the calls they approved or refused are back in the agent's hands.
    for (const open of this.interrupts) {
      const call = open.interrupt.toolCallId ? this.toolCalls.get(open.interrupt.toolCallId) : undefined;
      if (call?.status === "awaiting_approval") {
        this.putToolCall({ ...call, status: "running", runningSince: this.now(), interruptId: undefined });
        this.unsettledCalls.add(call.id);
      }
    }
    this.interrupts = [];
    this.changed();
  }

  private onRunFinished(event: RunFinishedEvent): void {
    this.runId = event.runId;
    this.openSteps.length = 0;
    this.closeStreamingMessages();
    const outcome = event.outcome;
    if (outcome?.type === "interrupt") {
      this.status = "awaiting_input";
      this.openInterrupts(outcome.interrupts);
    } else if (outcome?.type === "cancelled") {
      this.status = "cancelled";
      this.settleOpenItems("cancelled");
    } else {
      this.status = "finished";
    }
    this.changed();
  }

  private onRunError(event: RunErrorEvent): void {
    this.status = "error";
    this.openSteps.length = 0;
    this.error = { source: "run", name: "RunError", message: event.message, ...(event.code !== undefined ? { code: event.code } : {}) };
    this.settleOpenItems("failed");
    this.changed();
  }

  private startMessage(id: string, role: ChatMessage["role"], name?: string): void {
    const existing = this.message(id);
    // A START for a closed message reopens it: content appends.
    this.putMessage(existing ? { ...existing, streaming: true } : { id, role, content: "", ...(name !== undefined ? { name } : {}), streaming: true });
    this.streamingMessages.add(id);
    this.changed();
  }

  private appendText(id: string, delta: string): void {
    const message = this.message(id);
    if (!message) return;
    const content = typeof message.content === "string" ? message.content + delta : delta;
    this.putMessage({ ...message, content });
    this.changed();
  }

  private endMessage(id: string): void {
    const message = this.message(id);
    this.streamingMessages.delete(id);
    if (!message) return;
    this.putMessage({ ...message, streaming: false });
    this.changed();
  }

  private onToolCallStart(event: ToolCallStartEvent): void {
    const { toolCallId, toolCallName } = event;
    const parentId = event.parentMessageId ?? toolCallId;
    const existing = this.toolCalls.get(toolCallId);
    this.putToolCall(
      existing
        ? { ...existing, status: "streaming_args" }
        : { id: toolCallId, name: toolCallName, parentMessageId: parentId, argsText: "", status: "streaming_args", startedAt: this.now() },
    );
    this.unsettledCalls.add(toolCallId);
    const parent = this.message(parentId);
    if (!parent) {
      this.putMessage({ id: parentId, role: "assistant", content: "", toolCallIds: [toolCallId], streaming: false });
    } else if (!parent.toolCallIds?.includes(toolCallId)) {
      this.putMessage({ ...parent, toolCallIds: [...(parent.toolCallIds ?? []), toolCallId] });
    }
    this.changed();
  }

  private onToolCallArgs(event: ToolCallArgsEvent): void {
    const call = this.toolCalls.get(event.toolCallId);
    if (!call) return;
    this.putToolCall({ ...call, argsText: call.argsText + event.delta });
    this.changed();
  }

  private onToolCallEnd(event: ToolCallEndEvent): void {
    const call = this.toolCalls.get(event.toolCallId);
    if (!call) return;
    this.putToolCall({ ...call, ...parseArgs(call.argsText), status: "running", runningSince: this.now() });
    this.changed();
  }

  private onToolCallResult(event: ToolCallResultEvent): void {
    const { messageId, toolCallId, content } = event;
    this.putMessage({ id: messageId, role: "tool", content, toolCallId, streaming: false });
    const call = this.toolCalls.get(toolCallId);
    if (call) this.settleCall(call, readToolResult(content));
    this.changed();
  }

  private onStateDelta(event: StateDeltaEvent): void {
    try {
      this.sharedState = applyPatch(this.sharedState, event.delta as Operation[], true, false).newDocument;
    } catch (err) {
      console.warn("[agent-state] a STATE_DELTA did not apply; the shared state keeps its prior value", {
        error: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    this.changed();
  }

  /** AG-UI rule 13: replace by id in place, append the unseen in order, drop the absent except reasoning. */
  private onMessagesSnapshot(event: MessagesSnapshotEvent): void {
    const incoming = new Map<string, ChatMessage>();
    for (const message of event.messages) {
      const chat = fromWireMessage(message);
      if (chat) incoming.set(chat.id, chat);
    }
    const snapshotHasReasoning = event.messages.some((message) => message.role === "reasoning");
    const next: ChatMessage[] = [];
    const seen = new Set<string>();
    for (const current of this.messages) {
      const replacement = incoming.get(current.id);
      if (replacement) {
        next.push(replacement);
        seen.add(current.id);
      } else if (current.role === "reasoning" && !snapshotHasReasoning) {
        next.push(current);
      } else {
        this.streamingMessages.delete(current.id);
      }
    }
    for (const [id, message] of incoming) if (!seen.has(id)) next.push(message);
    this.replaceMessages(next, event.messages);
    this.changed();
  }

  private onCustom(event: CustomEvent): void {
    const record: CustomEventRecord = { name: event.name, value: event.value, ...(event.timestamp !== undefined ? { timestamp: event.timestamp } : {}) };
    this.customEvents.push(record);
    if (this.customEvents.length > CUSTOM_EVENTS_KEPT) this.customEvents.shift();
    this.changed();
    try {
      this.onCustomEvent?.(record);
    } catch (err) {
      console.warn("[agent-state] onCustomEvent threw", { error: err instanceof Error ? err.message : String(err) });
    }
  }

  // ---- runs -------------------------------------------------------------------------------

  private async answer(interruptId: string, answer: InterruptAnswer): Promise<void> {
    this.assertIdle();
    this.interrupts = this.interrupts.map((open) => (open.interrupt.id === interruptId ? { ...open, answer } : open));
    this.changed();
    if (!this.interrupts.every((open) => open.answer)) return;
    // An approval given in time may have expired while the others were answered.
    const now = new Date(this.now());
    const stale = this.interrupts.find((open) => open.answer?.status === "resolved" && isInterruptExpired(open.interrupt, now));
    if (stale) {
      this.interrupts = this.interrupts.map((open) => (open === stale ? { interrupt: open.interrupt } : open));
      this.changed();
      throw new Error(`Interrupt ${stale.interrupt.id} expired at ${stale.interrupt.expiresAt} before the resume was sent; it can only be cancelled`);
    }
    await this.run(this.resumeEntries());
  }

  private resumeEntries(): ResumeEntry[] {
    const responses: Parameters<typeof buildResumeArray>[1] = {};
    for (const open of this.interrupts) if (open.answer) responses[open.interrupt.id] = open.answer;
    return buildResumeArray(
      this.interrupts.map((open) => open.interrupt),
      responses,
    );
  }

  private async run(resume?: ResumeEntry[]): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    const input: RunAgentInput = {
      threadId: this.threadId,
      runId: randomUUID(),
      state: this.sharedState,
      messages: toWireMessages(this.messages, this.toolCalls),
      tools: this.tools,
      context: [],
      forwardedProps: {},
      ...(resume ? { resume } : {}),
    };
    this.status = "running";
    this.error = undefined;
    this.changed();
    try {
      for await (const event of this.client.stream(input, { signal: controller.signal })) {
        if (controller.signal.aborted) break;
        this.apply(event);
      }
    } catch (err) {
      if (!controller.signal.aborted) this.fail(err);
    } finally {
      if (this.controller === controller) this.controller = undefined;
    }
  }

  private fail(err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    this.error = {
      source: "transport",
      name: error.name,
      message: error.message,
      ...(error instanceof AgentHTTPError ? { status: error.status } : {}),
      ...(error instanceof AgentStreamError ? { reason: error.reason } : {}),
    };
    this.status = "error";
    this.openSteps.length = 0;
    this.settleOpenItems("failed");
    this.changed();
  }

  // ---- helpers ----------------------------------------------------------------------------

  private assertIdle(): void {
    if (this.controller) throw new Error("A run is already in progress");
  }

  private openInterrupt(interruptId: string): OpenInterrupt {
    const open = this.interrupts.find((candidate) => candidate.interrupt.id === interruptId);
    if (!open) throw new Error(`No open interrupt ${interruptId}`);
    return open;
  }

  private openInterrupts(interrupts: Interrupt[]): void {
    this.interrupts = interrupts.map((interrupt) => ({ interrupt }));
    for (const interrupt of interrupts) {
      const call = interrupt.toolCallId ? this.toolCalls.get(interrupt.toolCallId) : undefined;
      if (!call) continue;
      this.putToolCall({ ...call, status: "awaiting_approval", interruptId: interrupt.id });
      this.unsettledCalls.delete(call.id);
    }
  }

  private message(id: string): ChatMessage | undefined {
    const index = this.positions.get(id);
    return index === undefined ? undefined : this.messages[index];
  }

  private putMessage(message: ChatMessage): void {
    const index = this.positions.get(message.id);
    if (index === undefined) {
      this.positions.set(message.id, this.messages.length);
      this.messages.push(message);
    } else {
      this.messages[index] = message;
    }
  }

  /** Installs a whole new message list (snapshot, hydration) and the tool calls it implies. */
  private replaceMessages(messages: ChatMessage[], wire: Message[]): void {
    this.messages = messages;
    this.positions = new Map(messages.map((message, index) => [message.id, index]));
    for (const message of wire) {
      if (message.role !== "assistant") continue;
      for (const call of message.toolCalls ?? []) {
        const known = this.toolCalls.get(call.id);
        if (known) {
          if (known.argsText !== call.function.arguments || known.name !== call.function.name) {
            this.putToolCall({ ...known, name: call.function.name, argsText: call.function.arguments, ...parseArgs(call.function.arguments) });
          }
          continue;
        }
        this.putToolCall({
          id: call.id,
          name: call.function.name,
          parentMessageId: message.id,
          argsText: call.function.arguments,
          ...parseArgs(call.function.arguments),
          status: "running",
          startedAt: this.now(),
        });
        this.unsettledCalls.add(call.id);
      }
    }
    for (const message of wire) {
      if (message.role !== "tool") continue;
      const call = this.toolCalls.get(message.toolCallId);
      if (call && this.unsettledCalls.has(call.id)) this.settleCall(call, readToolResult(message.content, message.error));
    }
  }

  private putToolCall(call: ToolCallView): void {
    this.toolCalls.set(call.id, call);
  }

  private settleCall(call: ToolCallView, outcome: ToolOutcome): void {
    const at = this.now();
    const settled: ToolCallView = {
      ...call,
      status: outcome.status,
      result: outcome.result,
      error: outcome.error,
      interruptId: undefined,
      ...(call.runningSince !== undefined ? { durationMs: at - call.runningSince } : {}),
    };
    this.putToolCall(settled);
    this.unsettledCalls.delete(call.id);
  }

  /** Ends what a stopped, cancelled or failed run left open. */
  private settleOpenItems(status: "cancelled" | "failed"): void {
    this.closeStreamingMessages();
    for (const id of this.unsettledCalls) {
      const call = this.toolCalls.get(id);
      if (!call) continue;
      const error =
        status === "cancelled"
          ? { kind: "cancelled", message: "The run was cancelled before the call finished" }
          : { kind: "run_failed", message: "The run failed before the call finished" };
      this.putToolCall({ ...call, status, error });
    }
    this.unsettledCalls.clear();
  }

  private closeStreamingMessages(): void {
    for (const id of this.streamingMessages) {
      const message = this.message(id);
      if (message) this.putMessage({ ...message, streaming: false });
    }
    this.streamingMessages.clear();
  }

  private changed(): void {
    this.version += 1;
    this.snapshot = undefined;
    for (const listener of this.listeners) listener();
  }
}

function parseArgs(text: string): { args?: unknown; argsError?: string } {
  if (text.trim() === "") return { args: {} };
  try {
    return { args: JSON.parse(text), argsError: undefined };
  } catch (err) {
    return { args: undefined, argsError: err instanceof Error ? err.message : "The arguments are not JSON" };
  }
}
