import type { Message, TokenUsage } from "@ag-ui/core";
import type OpenAI from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionMessageFunctionToolCall,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { toOpenAIChatTool, type OpenAIChatTool } from "../../integrations/openai/openai-tools";
import type { ChatModel, ModelChunk, ModelRequest, ToolDescriptor } from "../model";
import { mediaNamedText } from "../media-text";
import { joinDelta, textOf, toolDefinitions } from "./common";
import { createOpenAIClient, openAIError, openWithRetries, ToolCallReader, type OpenAIModelOptions } from "./openai-client";
import { openAIEventBatches } from "./openai-events";

/**
 * A streamed delta as OpenAI-compatible servers send it: reasoning models served by vLLM, DeepSeek
 * and llama.cpp put their reasoning in `reasoning_content`, Ollama and OpenRouter in `reasoning`.
 */
type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };

interface StreamedCall {
  id?: string;
  name: string;
  json: string;
}

/**
 * OpenAI Chat Completions through the `openai` SDK, streamed: the API OpenAI-compatible servers
 * (Ollama, vLLM, llama.cpp's server, LM Studio) speak. Text and reasoning deltas as they come, the
 * answer's tool calls in order once it has finished, and one usage chunk at the end.
 */
export class OpenAIChatModel implements ChatModel {
  readonly label: string;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAIModelOptions) {
    this.label = `openai:${options.model}`;
    this.client = createOpenAIClient(options);
  }

  /** Streams the model's answer. Throws ModelError when the API refuses or fails, before or during the answer; the abort reason when `signal` aborts. */
  async *respond(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { signal } = request;
    const tools = toolDefinitions(request.tools, toOpenAIChatTool, clientTool);
    const reader = new ToolCallReader(
      request.tools,
      tools.map((tool) => ({ name: tool.function.name, strict: tool.function.strict })),
    );
    // The answer's calls in the order they began, and the one each stream index is building.
    const calls: StreamedCall[] = [];
    const building = new Map<number, StreamedCall>();
    let model = this.options.model;
    let usage: CompletionUsage | undefined;
    let callsSent = false;
    const finishedCalls = () => {
      callsSent = true;
      return calls.map((call): ModelChunk => ({
        type: "tool_call",
        name: call.name,
        args: reader.read(call.name, call.json),
        ...(call.id && { id: call.id }),
      }));
    };
    try {
      const response = await openWithRetries(
        () =>
          this.client.chat.completions
            .create(
              {
                model: this.options.model,
                messages: toChatMessages(request.system, request.messages),
                ...(tools.length && { tools }),
                ...(this.options.maxOutputTokens && { max_completion_tokens: this.options.maxOutputTokens }),
                stream: true,
                stream_options: { include_usage: true },
              },
              { signal },
            )
            .asResponse(),
        signal,
        this.options.maxRetries,
      );
      for await (const batch of openAIEventBatches<ChatCompletionChunk>(response)) {
        if (signal.aborted) break;
        // The chunks of this read, deltas that arrived together joined.
        const out: ModelChunk[] = [];
        for (const chunk of batch) {
          model = chunk.model || model;
          if (chunk.usage) usage = chunk.usage;
          // One answer asked for (n = 1): its choice has index 0.
          const choice = chunk.choices.find((c) => c.index === 0);
          if (!choice) continue;
          const delta = choice.delta as Delta;
          const reasoning = delta.reasoning_content ?? delta.reasoning;
          if (reasoning) joinDelta(out, "reasoning", reasoning);
          if (delta.content) joinDelta(out, "text", delta.content);
          if (delta.refusal) joinDelta(out, "text", delta.refusal);
          for (const part of delta.tool_calls ?? []) {
            // A part continues the call at its index, unless it names another call id there (some
            // compatible servers send every call at index 0, each whole).
            let call = building.get(part.index);
            if (!call || (part.id && call.id && part.id !== call.id)) {
              call = { name: "", json: "" };
              calls.push(call);
              building.set(part.index, call);
            }
            if (part.id) call.id = part.id;
            // OpenAI sends the name once; servers that repeat it send it whole each time.
            if (part.function?.name) call.name = part.function.name;
            if (part.function?.arguments) call.json += part.function.arguments;
            reader.checkLength(call.name, call.json.length);
          }
          // The calls are complete once the choice finishes; usage, when asked for, comes after.
          if (choice.finish_reason && !callsSent) out.push(...finishedCalls());
        }
        yield* out;
      }
      signal.throwIfAborted();
      // A server that ends the stream without a finish reason still made the calls it streamed.
      if (!callsSent) yield* finishedCalls();
    } catch (error) {
      signal.throwIfAborted();
      throw openAIError(error);
    }
    if (usage) yield { type: "usage", usage: tokenUsage(model, usage) };
  }
}

/**
 * The conversation in Chat Completions form: the agent's instructions first as a system message;
 * system and developer messages as system messages (OpenAI-compatible servers do not all know the
 * developer role); user text (the text parts of multimodal content); assistant text and tool calls;
 * tool results by call id. Reasoning and activity messages are not sent back.
 */
export function toChatMessages(system: string | undefined, history: readonly Message[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  for (const message of history) {
    switch (message.role) {
      case "system":
      case "developer":
        messages.push({ role: "system", content: message.content });
        break;
      case "user":
        messages.push({ role: "user", content: textOf(message) });
        break;
      case "assistant": {
        const calls: ChatCompletionMessageFunctionToolCall[] = (message.toolCalls ?? []).map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.function.name, arguments: call.function.arguments },
        }));
        // An assistant message with neither text nor calls is refused by the API.
        if (!message.content && !calls.length) break;
        messages.push({ role: "assistant", content: message.content || null, ...(calls.length && { tool_calls: calls }) });
        break;
      }
      case "tool":
        messages.push({ role: "tool", tool_call_id: message.toolCallId, content: mediaNamedText(textOf(message)) });
        break;
    }
  }
  return messages;
}

function clientTool(tool: ToolDescriptor): OpenAIChatTool {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters, strict: false } };
}

/** Chat Completions usage in AG-UI terms: cached tokens are part of the prompt, reasoning part of the completion, as OpenAI counts them. */
function tokenUsage(model: string, usage: CompletionUsage): TokenUsage {
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens;
  return {
    provider: "openai",
    model,
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    totalTokens: usage.prompt_tokens + usage.completion_tokens,
    ...(reasoning !== undefined && { reasoningTokens: reasoning }),
    ...(cached !== undefined && { cachedInputTokens: cached }),
    ...(cacheWrite && { cacheWriteInputTokens: cacheWrite }),
  };
}
