import { EventType, type TokenUsage } from "@ag-ui/core";
import type { RunItem, RunStreamEvent } from "@openai/agents";
import type { AgentRun, StreamingItem } from "../../agent-run";
import { newId } from "../../conversation";
import type { ConsoleCalls } from "./console-tools";

/** The id the Chat Completions model gives items it has no id for: never used as an AG-UI id. */
const PLACEHOLDER_ID = "FAKE_ID";

/** Raw Responses events that carry reasoning text as it streams. */
const REASONING_DELTAS = new Set(["response.reasoning_summary_text.delta", "response.reasoning_text.delta"]);

/**
 * Maps one SDK run's stream onto an AgentRun, event by event: text and reasoning deltas as they
 * come (under the SDK's item ids where it has real ones), tool and handoff calls with their SDK
 * call ids, their outputs as tool results (a result the thread holds already is not sent again),
 * agent changes as steps, and every model call's token usage.
 */
export class StreamMapper {
  private text: { sdkId?: string; item: StreamingItem } | undefined;
  private reasoning: { sdkId?: string; item: StreamingItem } | undefined;
  /** Deltas streamed since the last completed message or reasoning item: that item is not sent whole. */
  private textStreamed = false;
  private reasoningStreamed = false;
  private step: string | undefined;
  private readonly usedIds: Set<string>;

  constructor(
    private readonly run: AgentRun,
    private readonly calls: ConsoleCalls,
    private readonly model: { provider: string; name: string },
  ) {
    this.usedIds = new Set(run.messages().map((m) => m.id));
  }

  async map(event: RunStreamEvent): Promise<void> {
    switch (event.type) {
      case "raw_model_stream_event":
        return this.raw(event.data as { type: string } & Record<string, unknown>);
      case "run_item_stream_event":
        return this.item(event.name, event.item);
      case "agent_updated_stream_event":
        this.enterAgent(event.agent.name);
        return;
    }
  }

  /** Close what is streaming (a model call ended, or the run stops). */
  closeItems(): void {
    this.closeText();
    this.closeReasoning();
  }

  /** Close everything, the current agent's step included: the run is over. */
  finish(): void {
    this.closeItems();
    if (this.step) this.run.emit({ type: EventType.STEP_FINISHED, stepName: this.step });
    this.step = undefined;
  }

  private async raw(data: { type: string } & Record<string, unknown>): Promise<void> {
    if (data.type === "output_text_delta") {
      const itemId = typeof data.itemId === "string" ? data.itemId : undefined;
      this.closeReasoning();
      if (!this.text || (itemId && this.text.sdkId !== itemId)) {
        this.closeText();
        this.text = { sdkId: itemId, item: this.run.openText(this.idFor(itemId)) };
      }
      this.textStreamed = true;
      await this.text.item.append(String(data.delta ?? ""));
      return;
    }
    if (data.type === "response_done") {
      const usage = (data.response as { usage?: SdkUsage } | undefined)?.usage;
      if (usage) this.run.addUsage(tokenUsage(usage, this.model.provider, this.model.name));
      return;
    }
    if (data.type === "model") {
      const raw = data.event as { type?: unknown; item_id?: unknown; delta?: unknown } | undefined;
      if (!raw || typeof raw.type !== "string" || !REASONING_DELTAS.has(raw.type) || typeof raw.delta !== "string") return;
      const itemId = typeof raw.item_id === "string" ? raw.item_id : undefined;
      this.closeText();
      if (!this.reasoning || (itemId && this.reasoning.sdkId !== itemId)) {
        this.closeReasoning();
        this.reasoning = { sdkId: itemId, item: this.run.openReasoning(this.idFor(itemId)) };
      }
      this.reasoningStreamed = true;
      await this.reasoning.item.append(raw.delta);
    }
  }

  private async item(name: string, item: RunItem): Promise<void> {
    switch (name) {
      case "message_output_created": {
        if (item.type !== "message_output_item") return;
        if (this.textStreamed) {
          this.closeText();
          this.textStreamed = false;
          return;
        }
        // A model that did not stream (or a message the SDK made itself): the whole text at once.
        const text = item.rawItem.content
          .map((part) => (part.type === "output_text" ? part.text : part.type === "refusal" ? part.refusal : ""))
          .join("");
        if (text) await this.whole(this.run.openText(this.idFor(item.rawItem.id)), text);
        return;
      }
      case "reasoning_item_created": {
        if (item.type !== "reasoning_item") return;
        if (this.reasoningStreamed) {
          this.closeReasoning();
          this.reasoningStreamed = false;
          return;
        }
        const raw = item.rawItem;
        const text = (raw.rawContent?.length ? raw.rawContent : raw.content).map((part) => part.text).join("\n");
        if (text) await this.whole(this.run.openReasoning(this.idFor(raw.id)), text);
        return;
      }
      case "tool_called":
      case "handoff_requested": {
        this.closeItems();
        const raw = item.rawItem as { type?: string; callId?: string; id?: string; name?: string; arguments?: unknown };
        const callId = raw.callId ?? raw.id ?? newId("call");
        const args = typeof raw.arguments === "string" ? raw.arguments : JSON.stringify(raw.arguments ?? {});
        this.run.announceCall(callId, raw.name ?? raw.type ?? "tool", args);
        return;
      }
      case "tool_output":
      case "handoff_occurred": {
        this.closeItems();
        const raw = item.rawItem as { callId?: string; output?: unknown };
        const callId = raw.callId;
        if (!callId || this.answered(callId)) return;
        const result = this.calls.results.get(callId);
        if (result) {
          this.run.answer(callId, result);
          return;
        }
        const output = item.type === "tool_call_output_item" ? item.output : raw.output;
        this.run.answerMessage({ id: newId("msg"), role: "tool", toolCallId: callId, content: outputText(output) });
        return;
      }
      default:
        return;
    }
  }

  /** The agent now answering: a step of its own (the SDK announces changes, not the agent it starts with). */
  enterAgent(name: string): void {
    this.closeItems();
    if (this.step === name) return;
    if (this.step) this.run.emit({ type: EventType.STEP_FINISHED, stepName: this.step });
    this.step = name;
    this.run.emit({ type: EventType.STEP_STARTED, stepName: name });
  }

  private async whole(item: StreamingItem, text: string): Promise<void> {
    await item.append(text);
    item.close();
  }

  /** The SDK's id for an AG-UI message, unless it is a placeholder or taken (then the run makes one). */
  private idFor(sdkId: string | undefined): string | undefined {
    if (!sdkId || sdkId === PLACEHOLDER_ID || this.usedIds.has(sdkId)) return undefined;
    this.usedIds.add(sdkId);
    return sdkId;
  }

  private answered(callId: string): boolean {
    return this.run.messages().some((m) => m.role === "tool" && m.toolCallId === callId);
  }

  private closeText(): void {
    this.text?.item.close();
    this.text = undefined;
  }

  private closeReasoning(): void {
    this.reasoning?.item.close();
    this.reasoning = undefined;
  }
}

/** Token counts as the SDK reports one model call. */
interface SdkUsage {
  inputTokens: number;
  outputTokens: number;
  inputTokensDetails?: Record<string, number> | Array<Record<string, number>>;
  outputTokensDetails?: Record<string, number> | Array<Record<string, number>>;
}

/** One model call's usage as AG-UI's TokenUsage (totals, with the cached and reasoning parts). */
export function tokenUsage(usage: SdkUsage, provider: string, model: string): TokenUsage {
  const cached = detail(usage.inputTokensDetails, "cached_tokens");
  const reasoning = detail(usage.outputTokensDetails, "reasoning_tokens");
  return {
    provider,
    model,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
    ...(cached ? { cachedInputTokens: cached } : {}),
  };
}

function detail(details: SdkUsage["inputTokensDetails"], key: string): number {
  const list = Array.isArray(details) ? details : details ? [details] : [];
  return list.reduce((sum, entry) => sum + (typeof entry[key] === "number" ? entry[key] : 0), 0);
}

/** A tool's output as the text of a tool message. */
function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  const text = (output as { type?: unknown; text?: unknown } | undefined)?.text;
  if (typeof text === "string") return text;
  return JSON.stringify(output ?? null);
}
