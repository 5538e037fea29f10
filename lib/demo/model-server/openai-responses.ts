import { randomUUID } from "node:crypto";
import type { AssistantMessage, Message } from "@ag-ui/core";
import type {
  FunctionTool,
  Response,
  ResponseFunctionToolCall,
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseOutputText,
  ResponseReasoningItem,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses";
import { z } from "zod";
import type { ToolDescriptor } from "../../agents/model";
import { sendOpenAIError } from "./openai-error";
import { deltas, sendJson, streamEvents, type ReadConversation, type ScriptedTurn, type StreamedEvent, type WireFormat } from "./script";

/** Most input items and tools a request may carry (the body itself is capped by the server). */
const MAX_ITEMS = 2_000;

// What the scripted server reads of a Responses request: loose objects, since the SDK and
// frameworks send fields a scripted answer has no use for.
const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() });
const Content = z.union([z.string(), z.array(ContentPart).max(MAX_ITEMS)]);
const MessageItem = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: Content,
});
const FunctionCallItem = z.looseObject({ type: z.literal("function_call"), call_id: z.string(), name: z.string(), arguments: z.string() });
const FunctionCallOutputItem = z.looseObject({ type: z.literal("function_call_output"), call_id: z.string(), output: Content });
const Item = z.looseObject({ type: z.string().optional() });
const Tool = z.looseObject({ type: z.string() });
const FunctionToolSchema = z.looseObject({
  type: z.literal("function"),
  name: z.string(),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
});
const ResponsesRequest = z.looseObject({
  model: z.string(),
  instructions: z.string().nullish(),
  input: z.union([z.string(), z.array(Item).max(MAX_ITEMS)]),
  tools: z.array(Tool).max(MAX_ITEMS).optional(),
  stream: z.boolean().nullish(),
});

/**
 * The OpenAI Responses API (`POST …/responses`) as the scripted server speaks it: the typed
 * streaming events with their `sequence_number` (created, in progress, an output item per
 * reasoning summary, message and function call with their deltas, completed with usage), or one
 * `response` object. A failure met mid-answer goes out as `response.failed`.
 */
export const openAIResponsesWire: WireFormat = {
  id: "openai-responses",
  matches: (pathname) => pathname.endsWith("/responses"),
  read: readResponsesRequest,
  write: async (turn, conversation, res) => {
    if (conversation.stream) await streamEvents(res, responseEvents(turn, conversation), turn.pauseMs);
    else sendJson(res, 200, responseOf(turn, conversation, "completed", outputOf(turn)));
  },
  fail: sendOpenAIError,
};

/**
 * The conversation of a Responses request. `instructions` and system or developer messages make up
 * `system` (joined by blank lines); a function call joins the assistant message before it when no
 * tool result came between them. Non-function tools (web search...) are left out; other input items
 * are refused. Throws on a body that is not a Responses request.
 */
export function readResponsesRequest(body: Record<string, unknown>): ReadConversation {
  const parsed = ResponsesRequest.safeParse(body);
  if (!parsed.success) throw new Error(`Not a Responses request: ${z.prettifyError(parsed.error)}`);
  const request = parsed.data;
  const system: string[] = request.instructions ? [request.instructions] : [];
  const messages: Message[] = [];
  const id = () => `msg_${messages.length + 1}`;
  const items = typeof request.input === "string" ? [{ type: "message", role: "user", content: request.input }] : request.input;
  for (const [index, item] of items.entries()) {
    const type = item.type ?? "message";
    if (type === "message") {
      const message = parse(MessageItem, item, index);
      const text = textOf(message.content);
      if (message.role === "system" || message.role === "developer") system.push(text);
      else if (message.role === "user") messages.push({ id: id(), role: "user", content: text });
      else messages.push({ id: id(), role: "assistant", content: text });
    } else if (type === "function_call") {
      const call = parse(FunctionCallItem, item, index);
      const last = messages.at(-1);
      const owner: AssistantMessage = last?.role === "assistant" ? last : { id: id(), role: "assistant" };
      if (owner !== last) messages.push(owner);
      (owner.toolCalls ??= []).push({ id: call.call_id, type: "function", function: { name: call.name, arguments: call.arguments } });
    } else if (type === "function_call_output") {
      const output = parse(FunctionCallOutputItem, item, index);
      messages.push({ id: id(), role: "tool", toolCallId: output.call_id, content: textOf(output.output) });
    } else if (type !== "reasoning") {
      // Reasoning items a client sends back carry nothing a scripted answer reads.
      throw new Error(`The scripted server does not read input items of type ${JSON.stringify(type).slice(0, 80)}`);
    }
  }
  const tools: ToolDescriptor[] = [];
  for (const [index, tool] of (request.tools ?? []).entries()) {
    if (tool.type !== "function") continue;
    const fn = parse(FunctionToolSchema, tool, index);
    tools.push({
      name: fn.name,
      description: fn.description ?? "",
      parameters: fn.parameters ?? { type: "object", properties: {} },
      client: false,
    });
  }
  return { model: request.model, ...(system.length && { system: system.join("\n\n") }), messages, tools, stream: request.stream === true };
}

function parse<T>(schema: z.ZodType<T>, value: unknown, index: number): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`Responses input item ${index} is malformed: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

function textOf(content: z.infer<typeof Content>): string {
  if (typeof content === "string") return content;
  return content
    .map((part) => part.text ?? part.refusal ?? "")
    .filter(Boolean)
    .join("\n");
}

function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

function usageOf(turn: ScriptedTurn): ResponseUsage | undefined {
  if (!turn.usage) return undefined;
  const { input, output, reasoning, cachedInput } = turn.usage;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cachedInput ?? 0, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning ?? 0 },
    total_tokens: input + output,
  };
}

/** The output items of a turn, complete: a reasoning summary, a message, then the function calls. */
function outputOf(turn: ScriptedTurn): ResponseOutputItem[] {
  const output: ResponseOutputItem[] = [];
  if (turn.reasoning) output.push(reasoningItem(turn.reasoning));
  if (turn.text) output.push(messageItem(turn.text, "completed"));
  for (const call of turn.toolCalls ?? [])
    output.push({
      id: newId("fc"),
      type: "function_call",
      status: "completed",
      call_id: newId("call"),
      name: call.name,
      arguments: JSON.stringify(call.args),
    });
  return output;
}

function reasoningItem(text: string, id = newId("rs")): ResponseReasoningItem {
  return { id, type: "reasoning", summary: text ? [{ type: "summary_text", text }] : [] };
}

function outputText(text: string): ResponseOutputText {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

function messageItem(text: string, status: ResponseOutputMessage["status"], id = newId("msg")): ResponseOutputMessage {
  return { id, type: "message", role: "assistant", status, content: status === "completed" ? [outputText(text)] : [] };
}

function responseOf(
  turn: ScriptedTurn,
  conversation: ReadConversation,
  status: NonNullable<Response["status"]>,
  output: ResponseOutputItem[],
  id = newId("resp"),
): Response {
  const usage = status === "completed" ? usageOf(turn) : undefined;
  const tools: FunctionTool[] = conversation.tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: null,
  }));
  return {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions: conversation.system ?? null,
    metadata: {},
    model: conversation.model,
    output,
    output_text: output
      .flatMap((item) => (item.type === "message" ? item.content : []))
      .map((part) => (part.type === "output_text" ? part.text : ""))
      .join(""),
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: "auto",
    tools,
    top_p: 1,
    ...(usage && { usage }),
  };
}

type EventBody<E> = E extends ResponseStreamEvent ? Omit<E, "sequence_number"> : never;

/** The named events of a streamed response, numbered in order as the API numbers them. */
function* responseEvents(turn: ScriptedTurn, conversation: ReadConversation): Generator<StreamedEvent> {
  let sequence = 0;
  const numbered = (event: EventBody<ResponseStreamEvent>): StreamedEvent => ({
    data: { ...event, sequence_number: sequence++ },
    event: event.type,
  });
  const size = turn.chunk ?? 8;
  const id = newId("resp");
  const output: ResponseOutputItem[] = [];
  yield numbered({ type: "response.created", response: responseOf(turn, conversation, "in_progress", [], id) });
  yield numbered({ type: "response.in_progress", response: responseOf(turn, conversation, "in_progress", [], id) });

  if (turn.reasoning) {
    const output_index = output.length;
    const item = reasoningItem("");
    const at = { item_id: item.id, output_index, summary_index: 0 };
    yield numbered({ type: "response.output_item.added", output_index, item });
    yield numbered({ type: "response.reasoning_summary_part.added", ...at, part: { type: "summary_text", text: "" } });
    for (const delta of deltas(turn.reasoning, size)) yield numbered({ type: "response.reasoning_summary_text.delta", ...at, delta });
    yield numbered({ type: "response.reasoning_summary_text.done", ...at, text: turn.reasoning });
    yield numbered({ type: "response.reasoning_summary_part.done", ...at, part: { type: "summary_text", text: turn.reasoning } });
    const done = reasoningItem(turn.reasoning, item.id);
    yield numbered({ type: "response.output_item.done", output_index, item: done });
    output.push(done);
  }

  if (turn.text) {
    const output_index = output.length;
    const item = messageItem("", "in_progress");
    const at = { item_id: item.id, output_index, content_index: 0 };
    yield numbered({ type: "response.output_item.added", output_index, item });
    yield numbered({ type: "response.content_part.added", ...at, part: outputText("") });
    for (const delta of deltas(turn.text, size)) yield numbered({ type: "response.output_text.delta", ...at, delta, logprobs: [] });
    if (!turn.streamError) {
      yield numbered({ type: "response.output_text.done", ...at, text: turn.text, logprobs: [] });
      yield numbered({ type: "response.content_part.done", ...at, part: outputText(turn.text) });
      const done = messageItem(turn.text, "completed", item.id);
      yield numbered({ type: "response.output_item.done", output_index, item: done });
      output.push(done);
    }
  }

  if (turn.streamError) {
    const failed = responseOf(turn, conversation, "failed", output, id);
    failed.error = { code: turn.streamError.status === 429 ? "rate_limit_exceeded" : "server_error", message: turn.streamError.message };
    yield numbered({ type: "response.failed", response: failed });
    return;
  }

  for (const call of turn.toolCalls ?? []) {
    const output_index = output.length;
    const args = JSON.stringify(call.args);
    const item: ResponseFunctionToolCall = {
      id: newId("fc"),
      type: "function_call",
      status: "in_progress",
      call_id: newId("call"),
      name: call.name,
      arguments: "",
    };
    yield numbered({ type: "response.output_item.added", output_index, item });
    for (const delta of deltas(args, size))
      yield numbered({ type: "response.function_call_arguments.delta", item_id: item.id!, output_index, delta });
    yield numbered({ type: "response.function_call_arguments.done", item_id: item.id!, output_index, name: call.name, arguments: args });
    const done: ResponseFunctionToolCall = { ...item, status: "completed", arguments: args };
    yield numbered({ type: "response.output_item.done", output_index, item: done });
    output.push(done);
  }

  yield numbered({ type: "response.completed", response: responseOf(turn, conversation, "completed", output, id) });
}
