import { setTimeout as sleep } from "node:timers/promises";
import {
  EventType,
  type AGUIEvent,
  type AssistantMessage,
  type Interrupt,
  type JsonPatch,
  type Message,
  type RunAgentInput,
  type TokenUsage,
  type Tool,
  type ToolMessage,
  aggregateTokenUsage,
} from "@ag-ui/core";
import fastJsonPatch from "fast-json-patch";
import { failure, isPending, newToolCallId, ToolNotFound, type RunContext, type ToolResult } from "../execution";
import { isJsonObject } from "../json/canonical";
import type { EventQueue } from "../streams/event-queue";
import type { AgentContext } from "./agent";
import { Conversation, newId, toolResultMessage } from "./conversation";
import { interruptFor } from "./interrupts";
import { turnSpent } from "../streams/turn-budget";

/**
 * How many deltas one queued event may hold, and how long its text may grow, while the reader is
 * behind: the queue's capacity in events then bounds what a stalled reader makes the run hold.
 */
const MAX_JOINED_DELTAS = 32;
const MAX_JOINED_CHARS = 16 * 1024;

/** Deltas streamed with no delay between two turns given to the event loop. */
const YIELD_EVERY = 256;

/** Thrown inside an agent function to end the run early: calls wait for a person or a client. */
export class RunPaused extends Error {
  override readonly name = "RunPaused";
  constructor() {
    super("The run pauses: calls wait for approval or for the client");
  }
}

/** A message being streamed: feed it deltas, then close it. */
export interface StreamingItem {
  messageId: string;
  /**
   * Stream one delta. Returns a promise to await when the agent must wait (the reader is behind,
   * a typing delay, a turn for the event loop), nothing otherwise: most deltas cost no promise.
   * Throws RunStopped once the run is stopped.
   */
  append(delta: string): Promise<void> | void;
  close(): void;
}

export interface CallAllOptions {
  /** Calls run at once (default 4). */
  concurrency?: number;
  /**
   * The tools the agent offered the model, by who runs them: the console (registry tools) or the
   * client (RunAgentInput.tools). A call is run by whoever its tool was offered as; a call of a tool
   * offered as neither is answered "not found" and not run, whatever the registry or the client holds.
   */
  offered?: { server: ReadonlySet<string>; client: ReadonlySet<string> };
}

export interface ToolCallRequest {
  name: string;
  args: Record<string, unknown>;
}

export interface AgentRunOptions {
  input: RunAgentInput;
  ctx: AgentContext;
  queue: EventQueue<AGUIEvent>;
  /** Delay between streamed text deltas, for a readable typing effect (0 in tests). */
  streamDelayMs?: number;
}

/** The scope every AG-UI call of a thread is recorded under: call ids are unique in a thread. */
export function threadScope(threadId: string): string {
  return `agui:${threadId}`;
}

/**
 * One AG-UI run of an agent function: its input, and methods that stream what the agent does as
 * AG-UI events (text, reasoning, steps, shared state, tool calls through the executor).
 */
export class AgentRun {
  readonly input: RunAgentInput;
  readonly threadId: string;
  readonly runId: string;
  readonly ctx: AgentContext;
  /** Every message of the conversation, in the order the client will hold them. */
  private readonly conversation: Conversation;
  private stateValue: unknown;
  private readonly interruptList: Interrupt[] = [];
  private readonly clientCalls: string[] = [];
  private readonly openSteps = new Set<string>();
  private readonly openItems = new Set<StreamingItem>();
  private currentAssistant: AssistantMessage | undefined;
  private readonly queue: EventQueue<AGUIEvent>;
  private readonly streamDelayMs: number;
  private toolCallCount = 0;
  private deltasSinceYield = 0;
  private readonly usageEntries: TokenUsage[] = [];
  /** The last content event queued, which later deltas of its message may join while it waits. */
  private joinable: { event?: { type: EventType; messageId: string; delta: string }; count: number } = { count: 0 };

  constructor(options: AgentRunOptions) {
    this.input = options.input;
    this.threadId = options.input.threadId;
    this.runId = options.input.runId;
    this.ctx = options.ctx;
    this.queue = options.queue;
    this.streamDelayMs = options.streamDelayMs ?? 0;
    this.conversation = new Conversation(options.input.messages);
    this.stateValue = options.input.state ?? {};
  }

  /** The executor's run context for calls made by this run. */
  get runContext(): RunContext {
    return {
      runId: this.runId,
      threadId: this.threadId,
      principal: this.ctx.principal.id,
      scope: threadScope(this.threadId),
      surface: this.ctx.surface ?? "agui",
      signal: this.ctx.signal,
    };
  }

  /** The conversation so far: the input's messages and what this run added. */
  messages(): readonly Message[] {
    return this.conversation.messages;
  }

  /** Tools the client declared in RunAgentInput.tools: the client runs them, not the console. */
  clientTools(): readonly Tool[] {
    return this.input.tools ?? [];
  }

  get interrupts(): readonly Interrupt[] {
    return this.interruptList;
  }

  get pendingClientCalls(): readonly string[] {
    return this.clientCalls;
  }

  get toolCalls(): number {
    return this.toolCallCount;
  }

  /** Record the token counts of one model call; the run reports their sum per model when it ends. */
  addUsage(usage: TokenUsage): void {
    this.usageEntries.push(usage);
  }

  /** The run's token usage, one entry per provider and model; undefined when no model call reported any. */
  get usage(): TokenUsage[] | undefined {
    return this.usageEntries.length ? aggregateTokenUsage(this.usageEntries) : undefined;
  }

  /** Send one event (timestamps are added here). */
  emit(event: AGUIEvent): void {
    this.queue.push({ ...event, timestamp: Date.now() } as AGUIEvent);
  }

  /** Stream an assistant text message in small deltas; returns its message id. */
  async text(content: string | AsyncIterable<string>): Promise<string> {
    const item = this.openText();
    for await (const delta of typeof content === "string" ? chunks(content) : content) await item.append(delta);
    item.close();
    return item.messageId;
  }

  /** Stream a reasoning trace (shown folded away in the console). */
  async reasoning(content: string | AsyncIterable<string>): Promise<string> {
    const item = this.openReasoning();
    for await (const delta of typeof content === "string" ? chunks(content) : content) await item.append(delta);
    item.close();
    return item.messageId;
  }

  /**
   * Start an assistant text message that the caller feeds delta by delta (a model's stream), under
   * the caller's id when it has one (a framework's own message id).
   */
  openText(messageId = newId("msg")): StreamingItem {
    const message: AssistantMessage = { id: messageId, role: "assistant", content: "" };
    this.conversation.push(message);
    this.currentAssistant = message;
    this.emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" });
    return this.streamingItem(
      messageId,
      (delta) => {
        message.content += delta;
        this.emitContent(EventType.TEXT_MESSAGE_CONTENT, messageId, delta);
      },
      () => this.emit({ type: EventType.TEXT_MESSAGE_END, messageId }),
    );
  }

  /**
   * A text delta of an assistant message whose TEXT_MESSAGE_START the caller sent itself (a
   * framework that keeps its own conversation, as LangGraph does): joined with the one before it
   * while the reader is behind, as openText's deltas are.
   */
  textDelta(messageId: string, delta: string): void {
    if (delta) this.emitContent(EventType.TEXT_MESSAGE_CONTENT, messageId, delta);
  }

  /**
   * A content delta of a streamed message. While the reader is behind (the previous delta of the
   * same message still waits in the queue), it joins that delta instead of queueing an event of its
   * own: a model that streams faster than the client reads costs one event per batch the client
   * takes, not one per token, and the text is the same.
   */
  private emitContent(type: EventType.TEXT_MESSAGE_CONTENT | EventType.REASONING_MESSAGE_CONTENT, messageId: string, delta: string): void {
    const waiting = this.queue.lastWaiting;
    if (
      waiting &&
      waiting === this.joinable.event &&
      this.joinable.event.type === type &&
      this.joinable.event.messageId === messageId &&
      this.joinable.count < MAX_JOINED_DELTAS &&
      this.joinable.event.delta.length < MAX_JOINED_CHARS
    ) {
      this.joinable.event.delta += delta;
      this.joinable.count++;
      return;
    }
    const event = { type, messageId, delta, timestamp: Date.now() };
    this.queue.push(event as AGUIEvent);
    this.joinable = { event, count: 1 };
  }

  /** Start a reasoning message that the caller feeds delta by delta (under the caller's span id, if given). */
  openReasoning(spanId = newId("rs")): StreamingItem {
    const messageId = `${spanId}-1`;
    const message: Message = { id: messageId, role: "reasoning", content: "" };
    this.conversation.push(message);
    this.currentAssistant = undefined;
    this.emit({ type: EventType.REASONING_START, messageId: spanId });
    this.emit({ type: EventType.REASONING_MESSAGE_START, messageId, role: "reasoning" });
    return this.streamingItem(
      messageId,
      (delta) => {
        message.content += delta;
        this.emitContent(EventType.REASONING_MESSAGE_CONTENT, messageId, delta);
      },
      () => {
        this.emit({ type: EventType.REASONING_MESSAGE_END, messageId });
        this.emit({ type: EventType.REASONING_END, messageId: spanId });
      },
    );
  }

  private streamingItem(messageId: string, write: (delta: string) => void, end: () => void): StreamingItem {
    let closed = false;
    const item: StreamingItem = {
      messageId,
      append: (delta) => {
        this.throwIfStopped();
        if (!delta || closed) return;
        write(delta);
        // Backpressure: while the reader of the run's events (the client, through the bridge) is
        // behind, the agent waits here instead of piling events up in memory.
        if (this.queue.full || this.streamDelayMs > 0) return this.pace();
        if (++this.deltasSinceYield >= YIELD_EVERY || ((this.deltasSinceYield & 15) === 0 && turnSpent())) {
          // With no delay, a model that never waits (the scripted one) would hold the process for
          // its whole answer: nothing reaches the socket and no other request is served until it
          // ends. Give the event loop a turn every so often.
          this.deltasSinceYield = 0;
          return new Promise<void>((resolve) => setImmediate(resolve));
        }
      },
      close: () => {
        if (closed) return;
        closed = true;
        this.openItems.delete(item);
        end();
      },
    };
    this.openItems.add(item);
    return item;
  }

  /** Wait for room in the queue, then the typing delay when there is one. */
  private async pace(): Promise<void> {
    if (this.queue.full) await this.queue.writable(this.ctx.signal);
    if (this.streamDelayMs > 0) await sleep(this.streamDelayMs, undefined, { signal: this.ctx.signal }).catch(() => {});
  }

  /** Run `fn` as a named step (STEP_STARTED / STEP_FINISHED around it). */
  async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.openSteps.add(name);
    this.emit({ type: EventType.STEP_STARTED, stepName: name });
    try {
      return await fn();
    } finally {
      this.openSteps.delete(name);
      this.emit({ type: EventType.STEP_FINISHED, stepName: name });
    }
  }

  /** An application event for the client (value must be JSON). */
  custom(name: string, value: unknown): void {
    this.emit({ type: EventType.CUSTOM, name, value });
  }

  /** The shared state as the client sent it, with this run's changes. */
  get state(): unknown {
    return this.stateValue;
  }

  /** Replace the shared state (streams STATE_SNAPSHOT). */
  setState(value: unknown): void {
    this.stateValue = structuredClone(value);
    this.emit({ type: EventType.STATE_SNAPSHOT, snapshot: this.stateValue });
  }

  /**
   * Change the shared state with `change` (it receives a copy to edit, or returns a new value);
   * streams the difference as STATE_DELTA (a JSON Patch), nothing when nothing changed.
   */
  updateState(change: (draft: Record<string, unknown>) => unknown): void {
    const before = this.stateValue;
    const draft = structuredClone(isJsonObject(before) ? before : {}) as Record<string, unknown>;
    const returned = change(draft);
    const after = returned === undefined ? draft : returned;
    if (!isJsonObject(before) || !isJsonObject(after)) {
      this.setState(after);
      return;
    }
    const delta = fastJsonPatch.compare(before, after);
    this.stateValue = after;
    // compare() only produces add/remove/replace operations.
    if (delta.length) this.emit({ type: EventType.STATE_DELTA, delta: delta as JsonPatch });
  }

  /**
   * Call one tool. Registry tools run through the executor and answer with a result; a call that
   * waits for approval, or a client-owned tool, pauses the run (throws RunPaused).
   */
  async call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return (await this.callAll([{ name, args }]))[0]!;
  }

  /**
   * Call several tools in one turn: each streams TOOL_CALL_START/ARGS/END, registry tools run
   * concurrently through the executor and stream TOOL_CALL_RESULT as they finish. When any call
   * waits for approval or belongs to the client, the completed ones are recorded and the run
   * pauses (throws RunPaused) after all of them are done.
   */
  async callAll(calls: ToolCallRequest[], options: CallAllOptions = {}): Promise<ToolResult[]> {
    this.throwIfStopped();
    const clientNames = new Set(this.clientTools().map((t) => t.name));
    const started = calls.map((call) => {
      const toolCallId = newToolCallId();
      const byClient = options.offered
        ? options.offered.client.has(call.name) && !options.offered.server.has(call.name)
        : !this.ctx.executor.registry.get(call.name)?.enabled && clientNames.has(call.name);
      this.announceCall(toolCallId, call.name, JSON.stringify(call.args ?? {}));
      if (byClient) this.clientCalls.push(toolCallId);
      return { ...call, toolCallId, byClient };
    });
    this.currentAssistant = undefined;

    // A tool the agent did not offer the model is not run, whatever the model asked.
    const { offered } = options;
    for (const call of started)
      if (offered && !call.byClient && !offered.server.has(call.name)) this.answer(call.toolCallId, failure(new ToolNotFound(call.name)));
    const serverCalls = started.filter((call) => !call.byClient && (!offered || offered.server.has(call.name)));
    const outcomes = await this.ctx.executor.callMany(
      // The ids were made above: no record can hold them, so the executor does not look (on
      // PostgreSQL that look is a round trip per turn of calls).
      serverCalls.map((call) => ({ name: call.name, args: call.args, callId: call.toolCallId, fresh: true })),
      {
        ctx: this.runContext,
        concurrency: options.concurrency ?? 4,
        onResult: (index, outcome) => {
          const call = serverCalls[index]!;
          if (!isPending(outcome)) return this.answer(call.toolCallId, outcome);
          const { approvalId, expiresAt, message } = outcome.pending;
          const subject = {
            id: approvalId,
            callId: call.toolCallId,
            tool: call.name,
            args: call.args,
            message,
            expiresAt,
            principal: this.ctx.principal.id,
            status: "pending" as const,
            decidedBy: null,
          };
          this.interruptList.push(interruptFor(subject, this.ctx.executor.registry.get(call.name)));
        },
      },
    );
    if (this.interruptList.length || this.clientCalls.length) throw new RunPaused();
    // No call belonged to the client and none waits: every call has its result, in call order.
    const results = new Map(serverCalls.map((call, index) => [call.toolCallId, outcomes[index] as ToolResult]));
    return started.map((call) => results.get(call.toolCallId) ?? failure(new ToolNotFound(call.name)));
  }

  /**
   * Stream a tool call that something other than this run makes and runs (a framework's own tool
   * loop), under its own id: TOOL_CALL_START/ARGS/END, recorded on the assistant message being
   * written. Calls in a row share that message; its result comes later through answerMessage.
   */
  announceCall(toolCallId: string, name: string, argsText: string): void {
    this.throwIfStopped();
    const parent = this.currentAssistant ?? this.conversation.newAssistantMessage();
    this.currentAssistant = parent;
    (parent.toolCalls ??= []).push({ id: toolCallId, type: "function", function: { name, arguments: argsText } });
    this.emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: name, parentMessageId: parent.id });
    for (const delta of chunks(argsText, 24)) this.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta });
    this.emit({ type: EventType.TOOL_CALL_END, toolCallId });
    this.toolCallCount++;
  }

  /** End the run with this interrupt among its others (a framework agent's own pause); throw RunPaused after. */
  addInterrupt(interrupt: Interrupt): void {
    this.interruptList.push(interrupt);
  }

  /**
   * Stream the result of a tool call (TOOL_CALL_RESULT) and add its tool message to the
   * conversation, right after the calls of the assistant message that made it.
   */
  answer(toolCallId: string, result: ToolResult): void {
    this.answerMessage(toolResultMessage(toolCallId, result));
  }

  /** Stream a tool message made elsewhere (a framework tool's own output) as answer() does. */
  answerMessage(message: ToolMessage): void {
    const { toolCallId } = message;
    // What follows a result is a new assistant message, not more of the one that made the call.
    this.currentAssistant = undefined;
    this.conversation.addToolMessage(message);
    this.emit({ type: EventType.TOOL_CALL_RESULT, messageId: message.id, toolCallId, content: message.content, role: "tool" });
  }

  /** Messages and steps left open (by an agent that failed or was stopped): closed before the run ends. */
  closeOpenItems(): void {
    for (const item of [...this.openItems]) item.close();
    for (const stepName of [...this.openSteps]) {
      this.openSteps.delete(stepName);
      this.emit({ type: EventType.STEP_FINISHED, stepName });
    }
  }

  private throwIfStopped(): void {
    if (this.ctx.signal.aborted) throw new RunStopped();
  }
}

/** The run was stopped (client disconnect or cancel) while the agent worked. */
export class RunStopped extends Error {
  override readonly name = "RunStopped";
  constructor() {
    super("The run was stopped");
  }
}

/** Split text into small pieces, at word boundaries where possible, for a streaming effect. */
export function* chunks(text: string, size = 12): Generator<string> {
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + size);
    if (end < text.length) {
      const space = text.lastIndexOf(" ", end);
      if (space > at) end = space + 1;
    }
    yield text.slice(at, end);
    at = end;
  }
}
