import { randomUUID } from "node:crypto";
import type { AssistantMessage, Message } from "@ag-ui/core";
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageFunctionToolCall } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { z } from "zod";
import type { ToolDescriptor } from "../../agents/model";
import { openAIErrorBody, sendOpenAIError } from "./openai-error";
import { deltas, sendJson, streamEvents, type ReadConversation, type ScriptedTurn, type StreamedEvent, type WireFormat } from "./script";

/** Most messages and tools a request may carry (the body itself is capped by the server). */
const MAX_ITEMS = 2_000;

// What the scripted server reads of a Chat Completions request: loose objects, since the SDK and
// OpenAI-compatible clients send fields a scripted answer has no use for.
const TextContent = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() })).max(MAX_ITEMS),
  z.null(),
]);
const ToolCall = z.looseObject({
  id: z.string(),
  type: z.literal("function").optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
const ChatMessage = z.discriminatedUnion("role", [
  z.looseObject({ role: z.enum(["system", "developer"]), content: TextContent }),
  z.looseObject({ role: z.literal("user"), content: TextContent }),
  z.looseObject({ role: z.literal("assistant"), content: TextContent.optional(), tool_calls: z.array(ToolCall).max(MAX_ITEMS).optional() }),
  z.looseObject({ role: z.literal("tool"), tool_call_id: z.string(), content: TextContent }),
]);
const ChatTool = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
const ChatRequest = z.looseObject({
  model: z.string(),
  messages: z.array(ChatMessage).max(MAX_ITEMS),
  tools: z.array(ChatTool).max(MAX_ITEMS).optional(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
});

/** A Chat Completions request as read: the conversation, and whether a streamed answer ends with usage. */
export interface ChatConversation extends ReadConversation {
  includeUsage: boolean;
}

/** A streamed delta as OpenAI-compatible servers send it: reasoning rides in `reasoning_content`. */
type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string };

/**
 * OpenAI Chat Completions (`POST …/chat/completions`) as the scripted server speaks it: streamed
 * `chat.completion.chunk` frames ending in `data: [DONE]`, or one `chat.completion` body. Reasoning
 * goes out as `delta.reasoning_content`, as vLLM, DeepSeek and llama.cpp's server send it.
 */
export const openAIChatWire: WireFormat = {
  id: "openai-chat",
  matches: (pathname) => pathname.endsWith("/chat/completions"),
  read: readChatRequest,
  write: async (turn, conversation, res) => {
    if (conversation.stream) await streamEvents(res, chunkEvents(turn, conversation), turn.pauseMs);
    else sendJson(res, 200, chatCompletion(turn, conversation));
  },
  fail: sendOpenAIError,
};

/**
 * The conversation of a Chat Completions request. System and developer messages make up `system`
 * (joined by blank lines); the rest become AG-UI messages with ids `msg_1`, `msg_2`... Throws on a
 * body that is not a Chat Completions request.
 */
export function readChatRequest(body: Record<string, unknown>): ChatConversation {
  const parsed = ChatRequest.safeParse(body);
  if (!parsed.success) throw new Error(`Not a Chat Completions request: ${z.prettifyError(parsed.error)}`);
  const request = parsed.data;
  const system: string[] = [];
  const messages: Message[] = [];
  const id = () => `msg_${messages.length + 1}`;
  for (const message of request.messages) {
    switch (message.role) {
      case "system":
      case "developer":
        system.push(textOf(message.content));
        break;
      case "user":
        messages.push({ id: id(), role: "user", content: textOf(message.content) });
        break;
      case "assistant": {
        const read: AssistantMessage = { id: id(), role: "assistant" };
        const text = textOf(message.content ?? null);
        if (text) read.content = text;
        if (message.tool_calls?.length)
          read.toolCalls = message.tool_calls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.function.name, arguments: call.function.arguments },
          }));
        messages.push(read);
        break;
      }
      case "tool":
        messages.push({ id: id(), role: "tool", toolCallId: message.tool_call_id, content: textOf(message.content) });
        break;
    }
  }
  const tools: ToolDescriptor[] = (request.tools ?? []).map((tool) => ({
    name: tool.function.name,
    description: tool.function.description ?? "",
    parameters: tool.function.parameters ?? { type: "object", properties: {} },
    client: false,
  }));
  return {
    model: request.model,
    ...(system.length && { system: system.join("\n\n") }),
    messages,
    tools,
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
  };
}

function textOf(content: z.infer<typeof TextContent>): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part) => part.text ?? part.refusal ?? "")
    .filter(Boolean)
    .join("\n");
}

function newId(prefix: string): string {
  return `${prefix}${randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

function usageOf(turn: ScriptedTurn): CompletionUsage | undefined {
  if (!turn.usage) return undefined;
  const { input, output, reasoning, cachedInput } = turn.usage;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: cachedInput ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoning ?? 0 },
  };
}

function toolCallsOf(turn: ScriptedTurn): ChatCompletionMessageFunctionToolCall[] {
  return (turn.toolCalls ?? []).map((call) => ({
    id: newId("call_"),
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
}

/** The events of a streamed answer: `chat.completion.chunk` frames, then `[DONE]`. */
function* chunkEvents(turn: ScriptedTurn, conversation: ReadConversation): Generator<StreamedEvent> {
  const base = {
    id: newId("chatcmpl-"),
    object: "chat.completion.chunk" as const,
    created: Math.floor(Date.now() / 1000),
    model: conversation.model,
  };
  const chunkOf = (delta: Delta, finish: ChatCompletionChunk.Choice["finish_reason"] = null): StreamedEvent => ({
    data: { ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] } satisfies ChatCompletionChunk,
  });
  const size = turn.chunk ?? 8;
  yield chunkOf({ role: "assistant", content: "" });
  for (const piece of deltas(turn.reasoning ?? "", size)) yield chunkOf({ reasoning_content: piece });
  for (const piece of deltas(turn.text ?? "", size)) yield chunkOf({ content: piece });
  if (turn.streamError) {
    // OpenAI reports a failure met mid-answer as an error frame, and the SDK throws it.
    yield { data: openAIErrorBody(turn.streamError.status, turn.streamError.message) };
    return;
  }
  const calls = toolCallsOf(turn);
  for (const [index, call] of calls.entries()) {
    yield chunkOf({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    for (const piece of deltas(call.function.arguments, size)) yield chunkOf({ tool_calls: [{ index, function: { arguments: piece } }] });
  }
  yield chunkOf({}, calls.length ? "tool_calls" : "stop");
  const usage = usageOf(turn);
  if (usage && "includeUsage" in conversation && conversation.includeUsage) {
    yield { data: { ...base, choices: [], usage } satisfies ChatCompletionChunk };
  }
  yield { data: "[DONE]" };
}

function chatCompletion(turn: ScriptedTurn, conversation: ReadConversation): ChatCompletion {
  const calls = toolCallsOf(turn);
  const message: ChatCompletion.Choice["message"] & { reasoning_content?: string } = {
    role: "assistant",
    content: turn.text ?? null,
    refusal: null,
    ...(calls.length && { tool_calls: calls }),
    ...(turn.reasoning && { reasoning_content: turn.reasoning }),
  };
  const usage = usageOf(turn);
  return {
    id: newId("chatcmpl-"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: conversation.model,
    choices: [{ index: 0, message, finish_reason: calls.length ? "tool_calls" : "stop", logprobs: null }],
    ...(usage && { usage }),
  };
}
