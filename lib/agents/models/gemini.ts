import type { Message, TokenUsage } from "@ag-ui/core";
import { ApiError, GoogleGenAI, type Content, type GenerateContentResponseUsageMetadata, type Part } from "@google/genai";
import { toGeminiFunctionDeclaration, type GeminiFunctionDeclaration } from "../../integrations/gemini/function-declarations";
import { ModelError, type ChatModel, type ModelChunk, type ModelRequest, type ToolDescriptor } from "../model";
import { mediaNamedText } from "../media-text";
import { parseToolArguments, providerError, textOf, toolDefinitions } from "./common";
import type { DriverOptions } from "./driver";
import { inSmallPieces } from "./sse-chunks";
import type { ToolSpec } from "../../tools/spec";

/** Retries of a request that failed before its answer started. */
const DEFAULT_MAX_RETRIES = 2;
/** Longest a request may take, streamed answer included (the SDK sets no limit of its own). */
const REQUEST_TIMEOUT_MS = 10 * 60_000;
/**
 * Model families that think and accept `includeThoughts`. Older models may refuse a thinking
 * configuration, so it is only sent to these.
 */
const THINKING_MODELS = /^(?:models\/)?gemini-(?:2\.5|[3-9])/;
/**
 * Gemini 3 refuses a function call in the history without the thought signature it came with.
 * The console does not keep signatures yet (a tool call chunk has no field for one), so calls
 * without one carry the value Google documents for calls whose signature is not available.
 */
const NO_SIGNATURE = "skip_thought_signature_validator";

export interface GeminiModelOptions extends DriverOptions {
  /** Retries of a request that failed before its answer started (default 2; 0 turns them off). */
  maxRetries?: number;
}

/**
 * The Gemini API through `@google/genai`, streamed: text and thought deltas as they come, the
 * function calls of a turn (several are parallel calls), and one usage chunk at the end.
 */
export class GeminiModel implements ChatModel {
  readonly label: string;
  private readonly client: GoogleGenAI;

  constructor(private readonly options: GeminiModelOptions) {
    this.label = `gemini:${options.model}`;
    const retries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.client = new GoogleGenAI({
      // Explicit, so that the SDK does not switch to Vertex AI or another base URL from the
      // environment behind the console's configuration.
      vertexai: false,
      apiKey: options.apiKey,
      httpOptions: {
        baseUrl: options.baseUrl ?? "https://generativelanguage.googleapis.com",
        timeout: REQUEST_TIMEOUT_MS,
        retryOptions: { attempts: 1 + retries, initialDelay: 0.5, maxDelay: 8 },
        // Streamed answers in small pieces: the SDK scans a chunk once per event (`inSmallPieces`).
        fetch: inSmallPieces(options.fetch ?? ((input, init) => fetch(input, init))),
      },
    });
  }

  /** Streams the model's answer. Throws ModelError when the API refuses or fails, before or during the answer. */
  async *respond(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { signal } = request;
    const { systemInstruction, contents } = toGeminiContents(request.system, request.messages);
    const functionDeclarations = toolDefinitions(request.tools, geminiDeclaration, clientDeclaration);
    let model = this.options.model;
    let usage: GenerateContentResponseUsageMetadata | undefined;
    let finishReason: string | undefined;
    let said = false;
    signal.throwIfAborted();
    try {
      const stream = await this.client.models.generateContentStream({
        model: this.options.model,
        contents,
        config: {
          abortSignal: signal,
          ...(systemInstruction && { systemInstruction }),
          ...(functionDeclarations.length && { tools: [{ functionDeclarations }] }),
          ...(this.options.maxOutputTokens && { maxOutputTokens: this.options.maxOutputTokens }),
          ...(THINKING_MODELS.test(this.options.model) && { thinkingConfig: { includeThoughts: true } }),
        },
      });
      for await (const response of stream) {
        if (signal.aborted) break;
        if (response.promptFeedback?.blockReason)
          throw new ModelError(`Gemini blocked the prompt (${response.promptFeedback.blockReason})`, "model_error");
        model = response.modelVersion || model;
        usage = response.usageMetadata ?? usage;
        finishReason = response.candidates?.[0]?.finishReason ?? finishReason;
        for (const part of response.candidates?.[0]?.content?.parts ?? []) {
          const call = part.functionCall;
          if (call) {
            const name = call.name ?? "";
            if (!name) throw new ModelError("Gemini sent a function call without a name", "model_error");
            // The SDK has parsed the arguments already; they go through the same shape and depth checks as any driver's.
            const args = parseToolArguments("Gemini", name, JSON.stringify(call.args ?? {}));
            said = true;
            yield { type: "tool_call", name, args, ...(call.id && { id: call.id }) };
          } else if (part.text) {
            said ||= !part.thought;
            yield { type: part.thought ? "reasoning" : "text", delta: part.text };
          }
        }
      }
    } catch (error) {
      signal.throwIfAborted();
      throw geminiError(error);
    }
    signal.throwIfAborted();
    // An answer with nothing in it for another reason than a normal stop (a safety block, a
    // malformed function call, the output cap spent on thoughts) would read as the model saying
    // nothing; it says why instead.
    if (!said && finishReason && finishReason !== "STOP")
      throw new ModelError(`Gemini stopped without an answer (${finishReason})`, "model_error");
    yield { type: "usage", usage: tokenUsage(model, usage) };
  }
}

/**
 * The conversation in Gemini's form: system and developer messages make the system instruction;
 * user turns are `user` contents, assistant turns `model` contents with their text and
 * `functionCall` parts; consecutive tool results go in one `user` content as `functionResponse`
 * parts, each named after the call it answers (found in the assistant message that made it), with
 * the result as `output`, or as `error` for a failure. Reasoning text is not sent back: Gemini
 * reads its thoughts from signatures, not from text.
 * Throws ModelError for a tool result that answers no call in the conversation.
 */
export function toGeminiContents(
  system: string | undefined,
  history: readonly Message[],
): { systemInstruction?: Content; contents: Content[] } {
  const systems = system ? [system] : [];
  const names = new Map<string, string>();
  for (const message of history)
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) names.set(call.id, call.function.name);
  const contents: Array<Content & { parts: Part[] }> = [];
  const add = (role: "user" | "model", parts: Part[]) => {
    if (!parts.length) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
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
        if (text) add("user", [{ text }]);
        break;
      }
      case "tool": {
        const name = names.get(message.toolCallId);
        if (!name)
          throw new ModelError(
            `The conversation has a tool result for ${message.toolCallId}, a call no assistant message made`,
            "model_error",
          );
        const value = resultValue(mediaNamedText(textOf(message)));
        add("user", [
          {
            functionResponse: {
              id: message.toolCallId,
              name,
              response: message.error !== undefined ? { error: value } : { output: value },
            },
          },
        ]);
        break;
      }
      case "assistant": {
        const parts: Part[] = [];
        const text = textOf(message);
        if (text) parts.push({ text });
        (message.toolCalls ?? []).forEach((call, index) =>
          parts.push({
            functionCall: { id: call.id, name: call.function.name, args: storedArguments(call.function.arguments) },
            // Gemini looks for the signature on the first call of a turn.
            ...((call.encryptedValue || index === 0) && { thoughtSignature: call.encryptedValue || NO_SIGNATURE }),
          }),
        );
        add("model", parts);
        break;
      }
      default:
        break;
    }
  }
  return { ...(systems.length && { systemInstruction: { parts: [{ text: systems.join("\n\n") }] } }), contents };
}

/** A client tool (no registry spec) from its JSON Schema. */
function clientDeclaration(tool: ToolDescriptor): GeminiFunctionDeclaration {
  return { name: tool.name, description: tool.description, parametersJsonSchema: tool.parameters };
}

/** A tool result as a JSON value when it is JSON (the console writes results as JSON), else as its text. */
function resultValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The arguments of a call already in the conversation. They were checked when the call was made;
 * text that is not a JSON object (a client's message, say) goes back as no arguments.
 */
function storedArguments(text: string): Record<string, unknown> {
  const value = resultValue(text);
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * Gemini's counts in AG-UI terms: the prompt count already includes the cached tokens; the tool-use
 * prompt and the thoughts are counted beside the prompt and the candidates, so they are added in.
 */
function tokenUsage(model: string, usage: GenerateContentResponseUsageMetadata | undefined): TokenUsage {
  const inputTokens = (usage?.promptTokenCount ?? 0) + (usage?.toolUsePromptTokenCount ?? 0);
  const thoughts = usage?.thoughtsTokenCount;
  const outputTokens = (usage?.candidatesTokenCount ?? 0) + (thoughts ?? 0);
  return {
    provider: "google",
    model,
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    ...(thoughts !== undefined && { reasoningTokens: thoughts }),
    ...(usage?.cachedContentTokenCount && { cachedInputTokens: usage.cachedContentTokenCount }),
  };
}

/** A failure whose message is the API's own words rather than the SDK's dump of the error body. */
class GeminiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly original: ApiError,
  ) {
    super(message);
  }
}

/**
 * The SDK's error as a ModelError. The SDK's message is the error body as JSON; the API's own
 * message is taken out of it. The API answers a bad key with 400 and the reason API_KEY_INVALID,
 * which is said as a refused key, like a 401.
 */
function geminiError(error: unknown): ModelError {
  if (!(error instanceof ApiError)) return providerError("Gemini", "GEMINI_API_KEY", error);
  const body = jsonIn(error.message);
  const inner = body && typeof body.error === "object" && body.error ? (body.error as { message?: unknown; details?: unknown }) : undefined;
  const message = typeof inner?.message === "string" ? inner.message : error.message;
  const keyInvalid =
    Array.isArray(inner?.details) && inner.details.some((d: unknown) => (d as { reason?: unknown } | null)?.reason === "API_KEY_INVALID");
  if (keyInvalid)
    return new ModelError(`Gemini refused the key (${error.status}: ${message}). Check GEMINI_API_KEY.`, "model_error", error.status, {
      cause: error,
    });
  return providerError("Gemini", "GEMINI_API_KEY", new GeminiFailure(message, error.status, error));
}

/** The JSON object in an SDK error message (the whole message, or what follows "got status: …. "). */
function jsonIn(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf("{");
  if (start === -1) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The Gemini exporter with its default options, one function for every turn (toolDefinitions keeps its exports by exporter). */
function geminiDeclaration(spec: ToolSpec) {
  return toGeminiFunctionDeclaration(spec);
}
