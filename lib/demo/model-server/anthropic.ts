import { randomUUID } from "node:crypto";
import type { AssistantMessage, Message, ToolCall } from "@ag-ui/core";
import type { ToolDescriptor } from "../../agents/model";
import { isJsonObject } from "../../json/canonical";
import {
  deltas,
  sendJson,
  streamEvents,
  type ReadConversation,
  type ScriptedFailure,
  type ScriptedTurn,
  type StreamedEvent,
  type WireFormat,
} from "./script";

/**
 * Anthropic's Messages API as the scripted server speaks it: `POST …/v1/messages`, answered with
 * the named SSE events the API streams (`stream: true`) or one Message body, and errors as
 * `{type: "error", error: {type, message}}` with the status the API uses for that type.
 */
export const anthropicWire: WireFormat = {
  id: "anthropic",
  matches: (pathname) => pathname.endsWith("/v1/messages"),
  read: readMessagesRequest,
  write: async (turn, conversation, res) => {
    if (conversation.stream) await streamEvents(res, messageEvents(turn, conversation), turn.pauseMs);
    else sendJson(res, 200, wholeMessage(turn, conversation));
  },
  fail: (failure: ScriptedFailure, res) => sendJson(res, failure.error.status, errorBody(failure.error)),
};

/** The error `type` the API sends with each status (its documented error types). */
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

function errorBody(error: { status: number; message: string }) {
  const type = ERROR_TYPES[error.status] ?? (error.status >= 500 ? "api_error" : "invalid_request_error");
  return { type: "error", error: { type, message: error.message } };
}

/** Token counts in Anthropic's accounting: `input_tokens` leaves out the tokens read from the cache. */
function usageOf(turn: ScriptedTurn) {
  const usage = turn.usage ?? { input: 0, output: 0 };
  const cached = usage.cachedInput ?? 0;
  return {
    input_tokens: usage.input - cached,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: usage.output,
    ...(usage.reasoning !== undefined && { output_tokens_details: { thinking_tokens: usage.reasoning } }),
  };
}

function messageShell(conversation: ReadConversation) {
  return {
    id: `msg_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    type: "message",
    role: "assistant",
    model: conversation.model,
    stop_sequence: null,
  };
}

function toolUseId(): string {
  return `toolu_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/** A scripted signature: opaque to the driver, as the real one is. */
function signatureOf(reasoning: string): string {
  return Buffer.from(`scripted:${reasoning.length}`).toString("base64");
}

function wholeMessage(turn: ScriptedTurn, conversation: ReadConversation) {
  const content: unknown[] = [];
  if (turn.reasoning) content.push({ type: "thinking", thinking: turn.reasoning, signature: signatureOf(turn.reasoning) });
  if (turn.text) content.push({ type: "text", text: turn.text });
  for (const call of turn.toolCalls ?? []) content.push({ type: "tool_use", id: toolUseId(), name: call.name, input: call.args });
  return {
    ...messageShell(conversation),
    content,
    stop_reason: turn.toolCalls?.length ? "tool_use" : "end_turn",
    usage: usageOf(turn),
  };
}

/** The named events of a streamed Message, as the API sends them. */
function* messageEvents(turn: ScriptedTurn, conversation: ReadConversation): Generator<StreamedEvent> {
  const named = (data: { type: string; [key: string]: unknown }): StreamedEvent => ({ data, event: data.type });
  const size = turn.chunk ?? 8;
  const usage = usageOf(turn);
  yield named({
    type: "message_start",
    message: {
      ...messageShell(conversation),
      content: [],
      stop_reason: null,
      usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens) },
    },
  });
  yield named({ type: "ping" });
  let index = 0;
  if (turn.reasoning) {
    yield named({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const piece of deltas(turn.reasoning, size))
      yield named({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } });
    yield named({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: signatureOf(turn.reasoning) } });
    yield named({ type: "content_block_stop", index });
    index++;
  }
  if (turn.text) {
    yield named({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (const piece of deltas(turn.text, size))
      yield named({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
    yield named({ type: "content_block_stop", index });
    index++;
  }
  if (turn.streamError) {
    // The API reports a failure it meets mid-answer as an `error` event, and says no more.
    yield named(errorBody(turn.streamError));
    return;
  }
  for (const call of turn.toolCalls ?? []) {
    yield named({ type: "content_block_start", index, content_block: { type: "tool_use", id: toolUseId(), name: call.name, input: {} } });
    // The API opens each tool_use block with an empty piece of JSON, then streams the arguments' text.
    for (const piece of ["", ...deltas(JSON.stringify(call.args), size)])
      yield named({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
    yield named({ type: "content_block_stop", index });
    index++;
  }
  yield named({
    type: "message_delta",
    delta: { stop_reason: turn.toolCalls?.length ? "tool_use" : "end_turn", stop_sequence: null },
    usage,
  });
  yield named({ type: "message_stop" });
}

/** A Messages request read back into AG-UI messages and tools. Throws on a body that is not one. */
function readMessagesRequest(body: Record<string, unknown>): ReadConversation {
  if (typeof body.model !== "string" || !body.model) throw new Error("A Messages request needs a model");
  if (!Array.isArray(body.messages)) throw new Error("A Messages request needs a messages list");
  const systems: string[] = [];
  if (body.system !== undefined) systems.push(textOfContent(body.system, "system"));
  const messages: Message[] = [];
  body.messages.forEach((raw, at) => {
    if (!isJsonObject(raw)) throw new Error(`messages[${at}] is not an object`);
    const id = `msg_${at}`;
    if (raw.role === "system") systems.push(textOfContent(raw.content, `messages[${at}]`));
    else if (raw.role === "user") messages.push(...readUserTurn(raw.content, id, at));
    else if (raw.role === "assistant") messages.push(...readAssistantTurn(raw.content, id, at));
    else throw new Error(`messages[${at}] has an unknown role`);
  });
  const tools: ToolDescriptor[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isJsonObject(tool) || typeof tool.name !== "string" || !isJsonObject(tool.input_schema))
      throw new Error("A tool needs a name and an input_schema");
    tools.push({
      name: tool.name,
      description: typeof tool.description === "string" ? tool.description : "",
      parameters: tool.input_schema,
      client: false,
    });
  }
  return {
    model: body.model,
    ...(systems.length && { system: systems.join("\n\n") }),
    messages,
    tools,
    stream: body.stream === true,
  };
}

function blocksOf(content: unknown, where: string): Record<string, unknown>[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content) || !content.every(isJsonObject)) throw new Error(`${where} content must be text or a list of blocks`);
  return content;
}

function textOfContent(content: unknown, where: string): string {
  return blocksOf(content, where)
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}

function readUserTurn(content: unknown, id: string, at: number): Message[] {
  const out: Message[] = [];
  const texts: string[] = [];
  for (const block of blocksOf(content, `messages[${at}]`)) {
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (block.type === "tool_result") {
      if (typeof block.tool_use_id !== "string") throw new Error(`A tool_result in messages[${at}] needs a tool_use_id`);
      const text = block.content === undefined ? "" : textOfContent(block.content, `a tool_result in messages[${at}]`);
      out.push({
        id: `${id}_${out.length}`,
        role: "tool",
        toolCallId: block.tool_use_id,
        content: text,
        ...(block.is_error === true && { error: text }),
      });
    }
  }
  if (texts.length) out.push({ id, role: "user", content: texts.join("\n") });
  return out;
}

function readAssistantTurn(content: unknown, id: string, at: number): Message[] {
  const out: Message[] = [];
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of blocksOf(content, `messages[${at}]`)) {
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (block.type === "thinking" && typeof block.thinking === "string")
      out.push({
        id: `${id}_thinking`,
        role: "reasoning",
        content: block.thinking,
        ...(typeof block.signature === "string" && { encryptedValue: block.signature }),
      });
    else if (block.type === "tool_use") {
      if (typeof block.id !== "string" || typeof block.name !== "string")
        throw new Error(`A tool_use in messages[${at}] needs an id and a name`);
      toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const message: AssistantMessage = { id, role: "assistant", ...(texts.length && { content: texts.join("") }) };
  if (toolCalls.length) message.toolCalls = toolCalls;
  out.push(message);
  return out;
}
