import type { Message, TokenUsage } from "@ag-ui/core";
import type { ToolSpec } from "../tools/spec";

/** A tool as a model sees it. `client` tools run in the browser (RunAgentInput.tools). */
export interface ToolDescriptor {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  client: boolean;
  /**
   * The registry's definition, for a registry tool: provider drivers hand it to the console's own
   * exporters (OpenAI, Anthropic, Gemini formats) instead of sending `parameters` as they are.
   */
  spec?: ToolSpec;
}

/** One piece of a model's streamed answer. */
export type ModelChunk =
  | { type: "reasoning"; delta: string }
  | { type: "text"; delta: string }
  /** A complete tool call; `id` is the provider's call id when it gave one (the console assigns its own). */
  | { type: "tool_call"; name: string; args: Record<string, unknown>; id?: string }
  /** Token counts of one model call, sent once at its end (AG-UI's TokenUsage: totals, with parts). */
  | { type: "usage"; usage: TokenUsage };

export interface ModelRequest {
  /** The agent's instructions, sent the way the provider takes a system prompt. */
  system?: string;
  messages: readonly Message[];
  tools: readonly ToolDescriptor[];
  signal: AbortSignal;
}

/**
 * A chat model driver: the scripted demo model, or a provider driver (OpenAI Chat Completions and
 * Responses, Anthropic Messages, Gemini) behind the same interface.
 */
export interface ChatModel {
  /** Shown in the UI next to the agent, e.g. "scripted demo model (no LLM)" or "openai:gpt-5-mini". */
  label: string;
  /**
   * The answer, chunk by chunk. A model whose answer is at hand when it is asked for (the scripted
   * one) may return a plain iterable: the agent loop then reads it without a promise per chunk,
   * which a server where async context tracking is on (Next.js) pays for with every promise.
   */
  respond(request: ModelRequest): AsyncIterable<ModelChunk> | Iterable<ModelChunk>;
}

/**
 * A model that could not answer: the provider refused or failed, or no model is configured. The
 * run ends with RUN_ERROR carrying `message` (safe to show: no key, no request body) and `code`.
 */
export class ModelError extends Error {
  override readonly name = "ModelError";
  constructor(
    message: string,
    readonly code: "model_error" | "model_not_configured" | "model_refused_tools",
    /** The provider's HTTP status, when it answered one. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
