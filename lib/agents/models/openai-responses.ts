import type { Message, TokenUsage } from "@ag-ui/core";
import type OpenAI from "openai";
import type { ResponseInputItem, ResponseStreamEvent, ResponseUsage } from "openai/resources/responses/responses";
import { toOpenAIResponsesTool, type OpenAIResponsesTool } from "../../integrations/openai/openai-tools";
import type { ChatModel, ModelChunk, ModelRequest, ToolDescriptor } from "../model";
import { mediaNamedText } from "../media-text";
import { joinDelta, textOf, toolDefinitions } from "./common";
import { createOpenAIClient, openAIError, openWithRetries, streamedError, ToolCallReader, type OpenAIModelOptions } from "./openai-client";
import { openAIEventBatches } from "./openai-events";

/**
 * OpenAI's Responses API through the `openai` SDK, streamed and stateless (`store: false`: the
 * console keeps the conversation and sends it whole). Text and reasoning deltas as they come, each
 * function call once its item is done, and one usage chunk when the response completes.
 */
export class OpenAIResponsesModel implements ChatModel {
  readonly label: string;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAIModelOptions) {
    this.label = `openai-responses:${options.model}`;
    this.client = createOpenAIClient(options);
  }

  /** Streams the model's answer. Throws ModelError when the API refuses or fails, before or during the answer; the abort reason when `signal` aborts. */
  async *respond(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { signal } = request;
    const tools = toolDefinitions(request.tools, toOpenAIResponsesTool, clientTool);
    const reader = new ToolCallReader(request.tools, tools);
    let model = this.options.model;
    let usage: ResponseUsage | undefined;
    // Which reasoning summary part the deltas belong to, so that parts are kept apart by a blank line.
    let summary: string | undefined;
    const argumentChars = new Map<string, number>();
    try {
      const response = await openWithRetries(
        () =>
          this.client.responses
            .create(
              {
                model: this.options.model,
                ...(request.system && { instructions: request.system }),
                input: toResponsesInput(request.messages),
                ...(tools.length && { tools }),
                ...(this.options.maxOutputTokens && { max_output_tokens: this.options.maxOutputTokens }),
                store: false,
                stream: true,
              },
              { signal },
            )
            .asResponse(),
        signal,
        this.options.maxRetries,
      );
      for await (const batch of openAIEventBatches<ResponseStreamEvent>(response)) {
        if (signal.aborted) break;
        // The chunks of this read, deltas that arrived together joined.
        const out: ModelChunk[] = [];
        for (const event of batch) {
          switch (event.type) {
            case "response.output_text.delta":
            case "response.refusal.delta":
              if (event.delta) joinDelta(out, "text", event.delta);
              break;
            case "response.reasoning_summary_text.delta":
            case "response.reasoning_text.delta": {
              const part = `${event.item_id}:${"summary_index" in event ? event.summary_index : event.content_index}`;
              const gap = summary !== undefined && summary !== part ? "\n\n" : "";
              summary = part;
              if (event.delta) joinDelta(out, "reasoning", gap + event.delta);
              break;
            }
            case "response.function_call_arguments.delta": {
              // The arguments come whole with the item's end; their growth is bounded on the way.
              const length = (argumentChars.get(event.item_id) ?? 0) + event.delta.length;
              argumentChars.set(event.item_id, length);
              reader.checkLength(event.item_id, length);
              break;
            }
            case "response.output_item.done":
              if (event.item.type === "function_call") {
                const call = event.item;
                out.push({ type: "tool_call", name: call.name, args: reader.read(call.name, call.arguments), id: call.call_id });
              }
              break;
            case "response.completed":
            case "response.incomplete":
              model = event.response.model || model;
              usage = event.response.usage ?? usage;
              break;
            case "response.failed":
              yield* out;
              throw streamedError(event.response.error?.message ?? "", event.response.error?.code);
            case "error":
              yield* out;
              throw streamedError(event.message, event.code);
          }
        }
        yield* out;
      }
      signal.throwIfAborted();
    } catch (error) {
      signal.throwIfAborted();
      throw openAIError(error);
    }
    if (usage) yield { type: "usage", usage: tokenUsage(model, usage) };
  }
}

/**
 * The conversation as Responses input items: system and developer messages keep their role, user
 * text (the text parts of multimodal content) and assistant text are messages, an assistant's tool
 * calls are `function_call` items and tool results `function_call_output` items by call id.
 * Reasoning and activity messages are not sent back.
 */
export function toResponsesInput(history: readonly Message[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const message of history) {
    switch (message.role) {
      case "system":
      case "developer":
        items.push({ type: "message", role: message.role, content: message.content });
        break;
      case "user":
        items.push({ type: "message", role: "user", content: textOf(message) });
        break;
      case "assistant":
        if (message.content) items.push({ type: "message", role: "assistant", content: message.content });
        for (const call of message.toolCalls ?? [])
          items.push({ type: "function_call", call_id: call.id, name: call.function.name, arguments: call.function.arguments });
        break;
      case "tool":
        items.push({ type: "function_call_output", call_id: message.toolCallId, output: mediaNamedText(textOf(message)) });
        break;
    }
  }
  return items;
}

function clientTool(tool: ToolDescriptor): OpenAIResponsesTool {
  return { type: "function", name: tool.name, description: tool.description, parameters: tool.parameters, strict: false };
}

/** Responses usage in AG-UI terms: cached tokens are part of the input, reasoning part of the output, as OpenAI counts them. */
function tokenUsage(model: string, usage: ResponseUsage): TokenUsage {
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  const cached = usage.input_tokens_details?.cached_tokens;
  const cacheWrite = usage.input_tokens_details?.cache_write_tokens;
  return {
    provider: "openai",
    model,
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    totalTokens: usage.input_tokens + usage.output_tokens,
    ...(reasoning !== undefined && { reasoningTokens: reasoning }),
    ...(cached !== undefined && { cachedInputTokens: cached }),
    ...(cacheWrite && { cacheWriteInputTokens: cacheWrite }),
  };
}
