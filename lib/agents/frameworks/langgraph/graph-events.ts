import { EventType, tokenUsageFromLangChainMetadata } from "@ag-ui/core";
import {
  isAIMessage,
  isAIMessageChunk,
  isBaseMessage,
  isToolMessage,
  type AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  type ToolMessage,
} from "@langchain/core/messages";
import type { AgentRun } from "../../agent-run";
import { textContent, toolMessageText } from "./messages";

/** A tool call being streamed, by its index in the model's answer. */
interface OpenCall {
  toolCallId?: string;
  name?: string;
  /** Argument text received before the call's id and name were known. */
  buffered: string;
  started: boolean;
}

/**
 * Turns what `graph.stream(..., { streamMode: ["messages", "updates", "tasks"] })` yields into
 * AG-UI events on an AgentRun: model tokens as TEXT_MESSAGE_* under the LangChain message id, tool
 * call chunks as TOOL_CALL_START/ARGS/END under the model's call ids, ToolMessages as
 * TOOL_CALL_RESULT, tasks as steps named after their node, and token usage from the messages the
 * nodes wrote. Ids are the graph's own, so the MESSAGES_SNAPSHOT read from the graph's state at the
 * end names the same messages as the stream did.
 */
export class GraphEvents {
  /** The message being streamed (its text, its calls), closed when another message begins. */
  private current: { id: string; textOpen: boolean; calls: Map<number, OpenCall> } | undefined;
  /** Messages already streamed (a node's output repeats what its model streamed). */
  private readonly streamed = new Set<string>();
  private readonly usageSeen = new Set<string>();
  private readonly steps = new Map<string, number>();
  private readonly taskNames = new Map<string, string>();

  constructor(
    private readonly run: AgentRun,
    /** Tool calls whose answer the client holds already (the bridge streamed it): not streamed again. */
    private readonly answered: ReadonlySet<string>,
    /** Usage labels when the model's answer does not carry them. */
    private readonly labels: { id?: string; model?: string } = {},
  ) {}

  /** Map one item of the graph's stream. */
  take(item: unknown): void {
    if (!Array.isArray(item) || item.length !== 2) return;
    const [mode, chunk] = item as [string, unknown];
    if (mode === "messages" && Array.isArray(chunk) && isBaseMessage(chunk[0])) this.message(chunk[0]);
    else if (mode === "tasks" && typeof chunk === "object" && chunk !== null) this.task(chunk as Record<string, unknown>);
    else if (mode === "updates" && typeof chunk === "object" && chunk !== null) this.updates(chunk as Record<string, unknown>);
  }

  /** Close the message being streamed and every open step (before the run ends). */
  close(): void {
    this.closeCurrent();
    for (const name of this.steps.keys()) this.run.emit({ type: EventType.STEP_FINISHED, stepName: name });
    this.steps.clear();
  }

  private message(message: BaseMessage): void {
    if (isAIMessageChunk(message as AIMessageChunk)) this.chunk(message as AIMessageChunk);
    else if (isAIMessage(message)) this.whole(message);
    else if (isToolMessage(message)) this.result(message);
  }

  private chunk(message: AIMessageChunk): void {
    const id = message.id;
    if (!id) return;
    if (this.current?.id !== id) {
      this.closeCurrent();
      this.current = { id, textOpen: false, calls: new Map() };
      this.streamed.add(id);
    }
    const current = this.current;
    const text = textContent(message.content);
    if (text) {
      if (!current.textOpen) {
        current.textOpen = true;
        this.run.emit({ type: EventType.TEXT_MESSAGE_START, messageId: id, role: "assistant" });
      }
      this.run.textDelta(id, text);
    }
    for (const part of message.tool_call_chunks ?? []) {
      const index = part.index ?? 0;
      let call = current.calls.get(index);
      if (!call) current.calls.set(index, (call = { buffered: "", started: false }));
      call.toolCallId ??= part.id ?? undefined;
      call.name ??= part.name ?? undefined;
      const args = part.args ?? "";
      if (!call.started && call.toolCallId && call.name) {
        call.started = true;
        this.run.emit({ type: EventType.TOOL_CALL_START, toolCallId: call.toolCallId, toolCallName: call.name, parentMessageId: id });
        if (call.buffered) this.run.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.toolCallId, delta: call.buffered });
        call.buffered = "";
      }
      if (!args) continue;
      if (call.started) this.run.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.toolCallId!, delta: args });
      else call.buffered += args;
    }
  }

  /** An assistant message a node wrote without streaming it (no chat model, or a model that does not stream). */
  private whole(message: AIMessage): void {
    const id = message.id;
    if (!id || this.streamed.has(id)) return;
    this.closeCurrent();
    this.streamed.add(id);
    const text = textContent(message.content);
    if (text) {
      this.run.emit({ type: EventType.TEXT_MESSAGE_START, messageId: id, role: "assistant" });
      this.run.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: id, delta: text });
      this.run.emit({ type: EventType.TEXT_MESSAGE_END, messageId: id });
    }
    for (const call of message.tool_calls ?? []) {
      if (!call.id) continue;
      this.run.emit({ type: EventType.TOOL_CALL_START, toolCallId: call.id, toolCallName: call.name, parentMessageId: id });
      this.run.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: JSON.stringify(call.args ?? {}) });
      this.run.emit({ type: EventType.TOOL_CALL_END, toolCallId: call.id });
    }
  }

  private result(message: ToolMessage): void {
    this.closeCurrent();
    const id = message.id;
    if (!id || this.streamed.has(id) || this.answered.has(message.tool_call_id)) return;
    this.streamed.add(id);
    this.run.emit({
      type: EventType.TOOL_CALL_RESULT,
      messageId: id,
      toolCallId: message.tool_call_id,
      content: toolMessageText(message),
      role: "tool",
    });
  }

  private task(task: Record<string, unknown>): void {
    const id = typeof task.id === "string" ? task.id : undefined;
    const name = typeof task.name === "string" ? task.name : undefined;
    if (!id || !name) return;
    if ("input" in task) {
      this.taskNames.set(id, name);
      // Tasks of one node may run side by side (Send): the step stays open until the last ends.
      const open = this.steps.get(name) ?? 0;
      if (open === 0) this.run.emit({ type: EventType.STEP_STARTED, stepName: name });
      this.steps.set(name, open + 1);
      return;
    }
    if (!this.taskNames.delete(id)) return;
    this.closeCurrent();
    const open = this.steps.get(name) ?? 0;
    if (open <= 1) {
      this.steps.delete(name);
      this.run.emit({ type: EventType.STEP_FINISHED, stepName: name });
    } else this.steps.set(name, open - 1);
  }

  /** Token usage of the assistant messages the nodes wrote (each message counted once). */
  private updates(updates: Record<string, unknown>): void {
    for (const [node, update] of Object.entries(updates)) {
      if (node.startsWith("__") || typeof update !== "object" || update === null) continue;
      const messages = (update as { messages?: unknown }).messages;
      for (const message of Array.isArray(messages) ? messages : [messages]) {
        if (!isBaseMessage(message) || !isAIMessage(message) || !message.usage_metadata) continue;
        const key = message.id ?? "";
        if (this.usageSeen.has(key)) continue;
        this.usageSeen.add(key);
        const meta = message.response_metadata ?? {};
        const usage = tokenUsageFromLangChainMetadata(message.usage_metadata, {
          provider: this.labels.id ?? (typeof meta.model_provider === "string" ? meta.model_provider : undefined),
          model: typeof meta.model_name === "string" ? meta.model_name : this.labels.model,
        });
        if (usage) this.run.addUsage(usage);
      }
    }
  }

  private closeCurrent(): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    if (current.textOpen) this.run.emit({ type: EventType.TEXT_MESSAGE_END, messageId: current.id });
    for (const call of current.calls.values())
      if (call.started) this.run.emit({ type: EventType.TOOL_CALL_END, toolCallId: call.toolCallId! });
  }
}
