import type { Message } from "@ag-ui/core";

/** A tool as a model sees it. `client` tools run in the browser (RunAgentInput.tools). */
export interface ToolDescriptor {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  client: boolean;
}

/** One piece of a model's streamed answer. */
export type ModelChunk =
  | { type: "reasoning"; delta: string }
  | { type: "text"; delta: string }
  | { type: "tool_call"; name: string; args: Record<string, unknown> };

export interface ModelRequest {
  messages: readonly Message[];
  tools: readonly ToolDescriptor[];
  signal: AbortSignal;
}

/**
 * A chat model driver: the scripted demo model today, provider drivers (OpenAI, Anthropic, Gemini)
 * behind the same interface when their keys are set.
 */
export interface ChatModel {
  /** Shown in the UI next to the agent, e.g. "scripted demo model (no LLM)". */
  label: string;
  respond(request: ModelRequest): AsyncIterable<ModelChunk>;
}
