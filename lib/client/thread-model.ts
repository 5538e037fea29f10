import {
  EventType,
  type AGUIEvent,
  type CustomEvent,
  type Interrupt,
  type Message,
  type MessagesSnapshotEvent,
  type RunFinishedEvent,
  type StateDeltaEvent,
  type ToolCallResultEvent,
  type ToolCallStartEvent,
} from "@ag-ui/core";
import { fromWireMessage } from "./history";
import { SharedPatcher } from "./json-patch";
import type { AgentErrorInfo, ChatMessage, CustomEventRecord, OpenInterrupt, RunStatus, ToolCallView } from "./snapshot";
import { readToolResult, type ToolOutcome } from "./tool-result";

const CUSTOM_EVENTS_KEPT = 500;

/** What `load` hydrates from: the server's stored thread. */
export interface ThreadData {
  threadId?: string;
  messages: Message[];
  state?: unknown;
  /** The interrupts of the thread's last run, when it ended waiting for a person. */
  interrupts?: Interrupt[];
}

/**
 * One thread as AG-UI events build it: messages, tool calls, shared state, interrupts and where
 * the run stands. A reducer with no I/O and no listeners: `apply` changes the model in place and
 * says whether anything changed.
 *
 * Work per event is O(1) in the length of the thread: messages live in one array with an
 * id → index map and tool calls in one Map, both updated in place; an event replaces only the
 * entry it changes with a new object. Only MESSAGES_SNAPSHOT, `load` and starting a run walk the
 * whole thread.
 *
 * The frequent events (text and argument deltas) do not copy their entry each time: an entry
 * made since the last `publish()` has not been seen by any reader, so a delta grows it in place.
 * After `publish()` the next delta copies the entry once and grows the copy. A reader that takes
 * entries only after calling `publish()` (AgentState does, when it builds a snapshot) therefore
 * never sees an entry change under it, and a stream of deltas between two reads costs one copy.
 * Text deltas are collected and joined into the message once per read (or when anything else
 * touches the messages): one flat string per read, not one string piece per delta to keep.
 */
export class ThreadModel {
  runId: string | undefined;
  status: RunStatus = "idle";
  readonly openSteps: string[] = [];
  private list: ChatMessage[] = [];
  readonly toolCalls = new Map<string, ToolCallView>();
  sharedState: unknown;
  readonly customEvents: CustomEventRecord[] = [];
  interrupts: OpenInterrupt[] = [];
  error: AgentErrorInfo | undefined;

  private positions = new Map<string, number>();
  /** Tool calls still streaming or running, so ending a run touches only those. */
  private readonly unsettledCalls = new Set<string>();
  /** Messages still streaming. */
  private readonly streamingMessages = new Set<string>();
  /** The message and the tool call that deltas grew since the last `publish()`: no reader holds them yet. */
  private unpublishedMessage: Mutable<ChatMessage> | undefined;
  private unpublishedCall: Mutable<ToolCallView> | undefined;
  /** STATE_DELTA copies only the containers on its paths, and only once between two reads. */
  private readonly statePatcher = new SharedPatcher();
  /** Text deltas of one message not yet in its entry (`index` in the list). */
  private pendingText: { id: string; index: number; parts: string[] } | undefined;

  constructor(
    state: unknown,
    /** Clock for tool-call timings. */
    private readonly now: () => number,
  ) {
    this.sharedState = state;
  }

  /** The conversation in order, with every text delta applied so far. */
  get messages(): readonly ChatMessage[] {
    this.flushText();
    return this.list;
  }

  /** Apply one event; returns false for an event that changes nothing visible. */
  apply(event: AGUIEvent): boolean {
    switch (event.type) {
      // The deltas first: they are most of a run's events, and a switch tries its cases in order.
      case EventType.TEXT_MESSAGE_CONTENT:
      case EventType.REASONING_MESSAGE_CONTENT:
        return this.appendText(event.messageId, event.delta);
      case EventType.TOOL_CALL_ARGS:
        return this.appendArgs(event.toolCallId, event.delta);
      case EventType.RUN_STARTED:
        this.onRunStarted(event.runId);
        return true;
      case EventType.RUN_FINISHED:
        this.onRunFinished(event);
        return true;
      case EventType.RUN_ERROR:
        this.status = "error";
        this.openSteps.length = 0;
        this.error = { source: "run", name: "RunError", message: event.message, ...(event.code !== undefined ? { code: event.code } : {}) };
        this.settleOpenItems("failed");
        return true;
      case EventType.STEP_STARTED:
        this.openSteps.push(event.stepName);
        return true;
      case EventType.STEP_FINISHED: {
        const index = this.openSteps.lastIndexOf(event.stepName);
        if (index !== -1) this.openSteps.splice(index, 1);
        return true;
      }
      case EventType.TEXT_MESSAGE_START:
        this.startMessage(event.messageId, event.role ?? "assistant", event.name);
        return true;
      case EventType.REASONING_MESSAGE_START:
        this.startMessage(event.messageId, "reasoning");
        return true;
      case EventType.TEXT_MESSAGE_END:
      case EventType.REASONING_MESSAGE_END:
        this.endMessage(event.messageId);
        return true;
      case EventType.TOOL_CALL_START:
        this.onToolCallStart(event);
        return true;
      case EventType.TOOL_CALL_END: {
        const call = this.toolCalls.get(event.toolCallId);
        if (!call) return false;
        this.toolCalls.set(call.id, { ...call, ...parseArgs(call.argsText), status: "running", runningSince: this.now() });
        return true;
      }
      case EventType.TOOL_CALL_RESULT:
        this.onToolCallResult(event);
        return true;
      case EventType.STATE_SNAPSHOT:
        this.sharedState = event.snapshot;
        return true;
      case EventType.STATE_DELTA:
        return this.onStateDelta(event);
      case EventType.MESSAGES_SNAPSHOT:
        this.onMessagesSnapshot(event);
        return true;
      case EventType.CUSTOM:
        this.onCustom(event);
        return true;
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
        return false;
      default:
        console.debug("[agent-state] skipped an event it does not apply", { type: (event as { type: string }).type });
        return false;
    }
  }

  /**
   * A reader is about to hold the current entries: from now on a delta copies its entry before
   * changing it, so what the reader holds stays as it was.
   */
  publish(): void {
    this.flushText();
    this.unpublishedMessage = undefined;
    this.unpublishedCall = undefined;
    this.statePatcher.publish();
  }

  /** A run starts from the client: the error clears and the run is running. */
  beginRun(): void {
    this.status = "running";
    this.error = undefined;
  }

  /** Replaces everything with a stored thread: history, state and open interrupts. */
  load(thread: ThreadData): void {
    this.runId = undefined;
    this.openSteps.length = 0;
    this.toolCalls.clear();
    this.unsettledCalls.clear();
    this.streamingMessages.clear();
    this.customEvents.length = 0;
    this.error = undefined;
    this.sharedState = thread.state ?? {};
    this.replaceMessages(
      thread.messages.flatMap((message) => fromWireMessage(message) ?? []),
      thread.messages,
    );
    const interrupts = thread.interrupts ?? [];
    this.openInterrupts(interrupts);
    // A call with neither a result nor an open interrupt belongs to a run that is over.
    for (const id of [...this.unsettledCalls]) {
      const call = this.toolCalls.get(id);
      if (call && call.status !== "awaiting_approval") this.toolCalls.set(id, { ...call, status: "cancelled" });
      this.unsettledCalls.delete(id);
    }
    this.status = interrupts.length > 0 ? "awaiting_input" : "idle";
  }

  /** Appends a message (a user's, say) or replaces the one with its id. */
  putMessage(message: ChatMessage): void {
    this.flushText();
    const index = this.positions.get(message.id);
    if (index === undefined) {
      this.positions.set(message.id, this.list.length);
      this.list.push(message);
    } else {
      this.list[index] = message;
    }
  }

  /** Ends what a stopped, cancelled or failed run left open. */
  settleOpenItems(status: "cancelled" | "failed"): void {
    this.closeStreamingMessages();
    for (const id of this.unsettledCalls) {
      const call = this.toolCalls.get(id);
      if (!call) continue;
      const error =
        status === "cancelled"
          ? { kind: "cancelled", message: "The run was cancelled before the call finished" }
          : { kind: "run_failed", message: "The run failed before the call finished" };
      this.toolCalls.set(id, { ...call, status, error });
    }
    this.unsettledCalls.clear();
  }

  /** The run failed on the client's side (transport, protocol). */
  fail(error: AgentErrorInfo): void {
    this.error = error;
    this.status = "error";
    this.openSteps.length = 0;
    this.settleOpenItems("failed");
  }

  private onRunStarted(runId: string): void {
    this.runId = runId;
    this.status = "running";
    this.openSteps.length = 0;
    this.error = undefined;
    // The run that starts now carries the answers: the calls they approved or refused are back in the agent's hands.
    for (const open of this.interrupts) {
      const call = open.interrupt.toolCallId ? this.toolCalls.get(open.interrupt.toolCallId) : undefined;
      if (call?.status === "awaiting_approval") {
        this.toolCalls.set(call.id, { ...call, status: "running", runningSince: this.now(), interruptId: undefined });
        this.unsettledCalls.add(call.id);
      }
    }
    this.interrupts = [];
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
  }

  private startMessage(id: string, role: ChatMessage["role"], name?: string): void {
    const existing = this.message(id);
    // A START for a closed message reopens it: content appends.
    this.putMessage(
      existing ? { ...existing, streaming: true } : { id, role, content: "", ...(name !== undefined ? { name } : {}), streaming: true },
    );
    this.streamingMessages.add(id);
  }

  private appendText(id: string, delta: string): boolean {
    const pending = this.pendingText;
    if (pending?.id === id) {
      pending.parts.push(delta);
      return true;
    }
    const index = this.positions.get(id);
    if (index === undefined) return false;
    this.flushText();
    this.pendingText = { id, index, parts: [delta] };
    return true;
  }

  /** Joins the pending text deltas into their message: in place while no reader holds it, else into a copy. */
  private flushText(): void {
    const pending = this.pendingText;
    if (!pending) return;
    this.pendingText = undefined;
    const message = this.list[pending.index]!;
    const text = pending.parts.length === 1 ? pending.parts[0]! : pending.parts.join("");
    // A message whose content is parts (not text) is replaced by the streamed text.
    const content = typeof message.content === "string" ? message.content + text : text;
    if (message === this.unpublishedMessage) {
      this.unpublishedMessage.content = content;
    } else {
      const copy: Mutable<ChatMessage> = { ...message, content };
      this.list[pending.index] = copy;
      this.unpublishedMessage = copy;
    }
  }

  private appendArgs(toolCallId: string, delta: string): boolean {
    const call = this.toolCalls.get(toolCallId);
    if (!call) return false;
    if (call === this.unpublishedCall) {
      this.unpublishedCall.argsText += delta;
    } else {
      const copy: Mutable<ToolCallView> = { ...call, argsText: call.argsText + delta };
      this.toolCalls.set(toolCallId, copy);
      this.unpublishedCall = copy;
    }
    return true;
  }

  private endMessage(id: string): void {
    const message = this.message(id);
    this.streamingMessages.delete(id);
    if (message) this.putMessage({ ...message, streaming: false });
  }

  private onToolCallStart(event: ToolCallStartEvent): void {
    const { toolCallId, toolCallName } = event;
    const parentId = event.parentMessageId ?? toolCallId;
    const existing = this.toolCalls.get(toolCallId);
    this.toolCalls.set(
      toolCallId,
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
  }

  private onToolCallResult(event: ToolCallResultEvent): void {
    const { messageId, toolCallId, content } = event;
    this.putMessage({ id: messageId, role: "tool", content, toolCallId, streaming: false });
    const call = this.toolCalls.get(toolCallId);
    if (call) this.settleCall(call, readToolResult(content));
  }

  private onStateDelta(event: StateDeltaEvent): boolean {
    try {
      this.sharedState = this.statePatcher.apply(this.sharedState, event.delta);
      return true;
    } catch (err) {
      console.warn("[agent-state] a STATE_DELTA did not apply; the shared state keeps its prior value", {
        error: err instanceof Error ? err.message : String(err),
      });
      return false;
    }
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
  }

  private onCustom(event: CustomEvent): void {
    this.customEvents.push({
      name: event.name,
      value: event.value,
      ...(event.timestamp !== undefined ? { timestamp: event.timestamp } : {}),
    });
    if (this.customEvents.length > CUSTOM_EVENTS_KEPT) this.customEvents.shift();
  }

  private openInterrupts(interrupts: Interrupt[]): void {
    this.interrupts = interrupts.map((interrupt) => ({ interrupt }));
    for (const interrupt of interrupts) {
      const call = interrupt.toolCallId ? this.toolCalls.get(interrupt.toolCallId) : undefined;
      if (!call) continue;
      this.toolCalls.set(call.id, { ...call, status: "awaiting_approval", interruptId: interrupt.id });
      this.unsettledCalls.delete(call.id);
    }
  }

  private message(id: string): ChatMessage | undefined {
    const index = this.positions.get(id);
    if (index === undefined) return undefined;
    this.flushText();
    return this.list[index];
  }

  /** Installs a whole new message list (snapshot, hydration) and the tool calls it implies. */
  private replaceMessages(messages: ChatMessage[], wire: Message[]): void {
    this.flushText();
    this.list = messages;
    this.positions = new Map(messages.map((message, index) => [message.id, index]));
    for (const message of wire) {
      if (message.role !== "assistant") continue;
      for (const call of message.toolCalls ?? []) {
        const known = this.toolCalls.get(call.id);
        if (known) {
          if (known.argsText !== call.function.arguments || known.name !== call.function.name) {
            this.toolCalls.set(call.id, {
              ...known,
              name: call.function.name,
              argsText: call.function.arguments,
              ...parseArgs(call.function.arguments),
            });
          }
          continue;
        }
        this.toolCalls.set(call.id, {
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

  private settleCall(call: ToolCallView, outcome: ToolOutcome): void {
    const at = this.now();
    this.toolCalls.set(call.id, {
      ...call,
      status: outcome.status,
      result: outcome.result,
      error: outcome.error,
      interruptId: undefined,
      ...(call.runningSince !== undefined ? { durationMs: at - call.runningSince } : {}),
    });
    this.unsettledCalls.delete(call.id);
  }

  private closeStreamingMessages(): void {
    for (const id of this.streamingMessages) {
      const message = this.message(id);
      if (message) this.putMessage({ ...message, streaming: false });
    }
    this.streamingMessages.clear();
  }
}

/** An entry while only the model holds it. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function parseArgs(text: string): { args?: unknown; argsError?: string } {
  if (text.trim() === "") return { args: {} };
  try {
    return { args: JSON.parse(text), argsError: undefined };
  } catch (err) {
    return { args: undefined, argsError: err instanceof Error ? err.message : "The arguments are not JSON" };
  }
}
