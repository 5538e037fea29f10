import { createHash } from "node:crypto";
import type { Message, TokenUsage } from "@ag-ui/core";
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import { toAnthropicTool, type AnthropicTool } from "../../integrations/anthropic/anthropic-tools";
import { ModelError, type ChatModel, type ModelChunk, type ModelRequest, type ToolDescriptor } from "../model";
import { mediaNamedText } from "../media-text";
import { parseToolArguments, providerError, textOf, toolDefinitions } from "./common";
import type { DriverOptions } from "./driver";

/** The Messages API requires an output cap; this one leaves room for a long answer with tools. */
const DEFAULT_MAX_OUTPUT_TOKENS = 8192;
/** Retries of a request that failed before its answer started (the SDK backs off between them). */
const DEFAULT_MAX_RETRIES = 2;
/** Longest a request may take, streamed answer included. */
const REQUEST_TIMEOUT_MS = 10 * 60_000;
/** Most JSON text one tool call's streamed arguments may add up to. */
const MAX_ARGUMENT_CHARS = 1_000_000;
/** Tool-use ids the Messages API accepts. */
const TOOL_USE_ID = /^[a-zA-Z0-9_-]{1,64}$/;

export interface AnthropicModelOptions extends DriverOptions {
  /** Retries of a request that failed before its answer started (default 2; 0 turns them off). */
  maxRetries?: number;
}

/**
 * Anthropic's Messages API through `@anthropic-ai/sdk`, streamed: text and thinking deltas as they
 * come, each tool call once its arguments are complete, and one usage chunk at the end.
 */
export class AnthropicModel implements ChatModel {
  readonly label: string;
  private readonly client: Anthropic;

  constructor(private readonly options: AnthropicModelOptions) {
    this.label = `anthropic:${options.model}`;
    this.client = new Anthropic({
      apiKey: options.apiKey,
      // Explicit, so that the SDK does not pick up ANTHROPIC_BASE_URL or ANTHROPIC_AUTH_TOKEN from
      // the environment behind the console's configuration.
      authToken: null,
      baseURL: options.baseUrl ?? "https://api.anthropic.com",
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      timeout: REQUEST_TIMEOUT_MS,
      ...(options.fetch && { fetch: options.fetch }),
    });
  }

  /** Streams the model's answer. Throws ModelError when the API refuses or fails, before or during the answer. */
  async *respond(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { signal } = request;
    const { system, messages } = toAnthropicMessages(request.system, request.messages);
    const tools = toolDefinitions(request.tools, toAnthropicTool, clientTool);
    const calls = new Map<number, { id: string; name: string; json: string }>();
    let model: string = this.options.model;
    let usage: Partial<Anthropic.MessageDeltaUsage> = {};
    let stopReason: string | null | undefined;
    let said = false;
    try {
      const stream = await this.client.messages.create(
        {
          model: this.options.model,
          max_tokens: this.options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
          ...(system && { system }),
          messages,
          ...(tools.length && { tools }),
          stream: true,
        },
        { signal },
      );
      for await (const event of stream) {
        if (signal.aborted) break;
        switch (event.type) {
          case "message_start":
            model = event.message.model || model;
            usage = { ...event.message.usage };
            break;
          case "message_delta":
            // The delta's counts are cumulative; a count it leaves out (null) stays as it was.
            usage = { ...usage, ...withoutNulls(event.usage) };
            stopReason = event.delta.stop_reason ?? stopReason;
            break;
          case "content_block_start":
            if (event.content_block.type === "tool_use")
              calls.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: "" });
            break;
          case "content_block_delta": {
            const delta = event.delta;
            if (delta.type === "text_delta" && delta.text) {
              said = true;
              yield { type: "text", delta: delta.text };
            } else if (delta.type === "thinking_delta" && delta.thinking) yield { type: "reasoning", delta: delta.thinking };
            else if (delta.type === "input_json_delta") {
              const call = calls.get(event.index);
              if (!call) break;
              call.json += delta.partial_json;
              if (call.json.length > MAX_ARGUMENT_CHARS)
                throw new ModelError(
                  `Anthropic sent arguments for ${call.name} longer than ${MAX_ARGUMENT_CHARS} characters`,
                  "model_error",
                );
            }
            break;
          }
          case "content_block_stop": {
            const call = calls.get(event.index);
            if (!call) break;
            said = true;
            yield { type: "tool_call", name: call.name, args: parseToolArguments("Anthropic", call.name, call.json), id: call.id };
            break;
          }
        }
      }
    } catch (error) {
      signal.throwIfAborted();
      throw providerError("Anthropic", "ANTHROPIC_API_KEY", readable(error));
    }
    // The SDK ends the iteration quietly when the request is aborted; the caller hears of it here.
    signal.throwIfAborted();
    // An answer with nothing in it for another reason than the end of a turn (a refusal, the output
    // cap spent on thinking) would read as the model saying nothing; it says why instead.
    if (!said && stopReason && stopReason !== "end_turn")
      throw new ModelError(`Anthropic stopped without an answer (${stopReason})`, "model_error");
    yield { type: "usage", usage: tokenUsage(model, usage) };
  }
}

/**
 * The conversation in Messages API form: system and developer messages join the system prompt;
 * consecutive tool results go in one user message as `tool_result` blocks (ahead of any text, as
 * the API requires); an assistant turn is its text, then its `tool_use` blocks. A reasoning
 * message that carries its signature goes back as a `thinking` block (the API checks it); one
 * without a signature cannot be sent back and is left out.
 */
export function toAnthropicMessages(
  system: string | undefined,
  history: readonly Message[],
): { system?: string; messages: Anthropic.MessageParam[] } {
  const systems = system ? [system] : [];
  const messages: Array<{ role: "user" | "assistant"; content: Anthropic.ContentBlockParam[] }> = [];
  const add = (role: "user" | "assistant", blocks: Anthropic.ContentBlockParam[]) => {
    if (!blocks.length) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  let thinking: Anthropic.ThinkingBlockParam[] = [];
  for (const message of history) {
    switch (message.role) {
      case "system":
      case "developer": {
        const text = textOf(message);
        if (text) systems.push(text);
        break;
      }
      case "user": {
        const text = textOf(message);
        if (text) add("user", [{ type: "text", text }]);
        break;
      }
      case "tool":
        add("user", [
          {
            type: "tool_result",
            tool_use_id: toolUseIdOf(message.toolCallId),
            content: mediaNamedText(textOf(message)),
            ...(message.error !== undefined && { is_error: true }),
          },
        ]);
        break;
      case "reasoning":
        if (message.encryptedValue) thinking.push({ type: "thinking", thinking: message.content, signature: message.encryptedValue });
        break;
      case "assistant": {
        const blocks: Anthropic.ContentBlockParam[] = [...thinking];
        thinking = [];
        const text = textOf(message);
        if (text) blocks.push({ type: "text", text });
        for (const call of message.toolCalls ?? [])
          blocks.push({
            type: "tool_use",
            id: toolUseIdOf(call.id),
            name: call.function.name,
            input: storedArguments(call.function.arguments),
          });
        add("assistant", blocks);
        break;
      }
      default:
        break;
    }
  }
  for (const message of messages)
    if (message.role === "user") message.content.sort((a, b) => Number(b.type === "tool_result") - Number(a.type === "tool_result"));
  return { ...(systems.length && { system: systems.join("\n\n") }), messages };
}

/**
 * The id a call goes by in the Messages API. The console's own ids (`call_` and hex) are valid
 * tool-use ids and go as they are; an id a client made up that the API would refuse is replaced by
 * one derived from it, so the call and its result still pair up.
 */
export function toolUseIdOf(id: string): string {
  return TOOL_USE_ID.test(id) ? id : `toolu_${createHash("sha256").update(id).digest("hex").slice(0, 32)}`;
}

/** A client tool (no registry spec) from its JSON Schema. */
function clientTool(tool: ToolDescriptor): AnthropicTool {
  return { name: tool.name, description: tool.description, input_schema: { ...tool.parameters, type: "object" } };
}

/**
 * The arguments of a call already in the conversation. They were checked when the call was made;
 * text that is not a JSON object (a client's message, say) goes back as no arguments.
 */
function storedArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function withoutNulls<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}

/** Anthropic's counts in AG-UI terms: the input total takes in the cache reads and writes it reports beside it. */
function tokenUsage(model: string, usage: Partial<Anthropic.MessageDeltaUsage>): TokenUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const inputTokens = (usage.input_tokens ?? 0) + cacheRead + cacheWrite;
  const outputTokens = usage.output_tokens ?? 0;
  const thinking = usage.output_tokens_details?.thinking_tokens;
  return {
    provider: "anthropic",
    model,
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    ...(thinking !== undefined && { reasoningTokens: thinking }),
    ...(cacheRead && { cachedInputTokens: cacheRead }),
    ...(cacheWrite && { cacheWriteInputTokens: cacheWrite }),
  };
}

/** The HTTP status the API uses for each error type, for an error event that arrives mid-stream without one. */
const ERROR_TYPE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

/** A failure whose message is the API's own words rather than the SDK's dump of the error body. */
class AnthropicFailure extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly original: APIError,
  ) {
    super(message);
  }
}

function readable(error: unknown): unknown {
  if (!(error instanceof APIError) || !error.apiMessage) return error;
  const status = error.status ?? (error.type ? ERROR_TYPE_STATUS[error.type] : undefined);
  return new AnthropicFailure(error.apiMessage, status, error);
}
