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

/** `/{version}/models/{model}:generateContent` or `:streamGenerateContent`. */
const GEMINI_PATH = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/**
 * The Gemini API as the scripted server speaks it: `:streamGenerateContent?alt=sse` answered with
 * an SSE stream of GenerateContentResponse objects, `:generateContent` with one, and errors as
 * `{error: {code, message, status}}`.
 */
export const geminiWire: WireFormat = {
  id: "gemini",
  matches: (pathname) => GEMINI_PATH.test(pathname),
  read: readGenerateContentRequest,
  write: async (turn, conversation, res) => {
    if (conversation.stream) await streamEvents(res, responseEvents(turn, conversation), turn.pauseMs);
    else sendJson(res, 200, wholeResponse(turn, conversation));
  },
  fail: (failure: ScriptedFailure, res) => sendJson(res, failure.error.status, errorBody(failure.error)),
};

/** The canonical status names Google APIs send with each HTTP status. */
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

function errorBody(error: { status: number; message: string }) {
  return {
    error: {
      code: error.status,
      message: error.message,
      status: STATUS_NAMES[error.status] ?? (error.status >= 500 ? "INTERNAL" : "UNKNOWN"),
    },
  };
}

/** Gemini's accounting: the prompt count includes the cached tokens, and thoughts are counted beside the candidates. */
function usageMetadataOf(turn: ScriptedTurn) {
  const usage = turn.usage ?? { input: 0, output: 0 };
  const thoughts = usage.reasoning ?? 0;
  return {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output - thoughts,
    totalTokenCount: usage.input + usage.output,
    ...(usage.reasoning !== undefined && { thoughtsTokenCount: thoughts }),
    ...(usage.cachedInput !== undefined && { cachedContentTokenCount: usage.cachedInput }),
  };
}

/**
 * One GenerateContentResponse. As the API does, every chunk of a stream counts the prompt, and the
 * last one (`final`) carries the finish reason and the full counts.
 */
function response(conversation: ReadConversation, responseId: string, parts: unknown[], turn: ScriptedTurn, final: boolean) {
  const prompt = turn.usage?.input ?? 0;
  const usage = final ? usageMetadataOf(turn) : { promptTokenCount: prompt, totalTokenCount: prompt };
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...(final && { finishReason: "STOP" }) }],
    usageMetadata: usage,
    modelVersion: conversation.model,
    responseId,
  };
}

function callParts(turn: ScriptedTurn): unknown[] {
  return (turn.toolCalls ?? []).map((call) => ({ functionCall: { name: call.name, args: call.args } }));
}

function wholeResponse(turn: ScriptedTurn, conversation: ReadConversation) {
  const parts: unknown[] = [];
  if (turn.reasoning) parts.push({ text: turn.reasoning, thought: true });
  if (turn.text) parts.push({ text: turn.text });
  parts.push(...callParts(turn));
  return response(conversation, responseIdOf(), parts, turn, true);
}

/** The chunks of a streamed answer, each a GenerateContentResponse; the last carries the finish reason and the totals. */
function* responseEvents(turn: ScriptedTurn, conversation: ReadConversation): Generator<StreamedEvent> {
  const id = responseIdOf();
  const size = turn.chunk ?? 8;
  const chunks: unknown[][] = [
    ...deltas(turn.reasoning ?? "", size).map((piece) => [{ text: piece, thought: true }]),
    ...deltas(turn.text ?? "", size).map((piece) => [{ text: piece }]),
  ];
  if (turn.streamError) {
    for (const parts of chunks) yield { data: response(conversation, id, parts, turn, false) };
    // The API reports a failure it meets mid-answer as an `error` object in the stream.
    yield { data: errorBody(turn.streamError) };
    return;
  }
  // Parallel calls arrive together, in one chunk.
  if (turn.toolCalls?.length) chunks.push(callParts(turn));
  if (!chunks.length) chunks.push([]);
  for (const [at, parts] of chunks.entries()) yield { data: response(conversation, id, parts, turn, at === chunks.length - 1) };
}

function responseIdOf(): string {
  return randomUUID().replaceAll("-", "").slice(0, 22);
}

/** A generateContent request read back into AG-UI messages and tools. Throws on a body that is not one. */
function readGenerateContentRequest(body: Record<string, unknown>, url: URL): ReadConversation {
  const path = GEMINI_PATH.exec(url.pathname);
  if (!path) throw new Error(`Not a Gemini generateContent path: ${url.pathname}`);
  if (!Array.isArray(body.contents)) throw new Error("A generateContent request needs a contents list");
  const system = isJsonObject(body.systemInstruction) ? textOfParts(body.systemInstruction.parts) : "";
  const messages: Message[] = [];
  // Calls not yet answered, by name: a function response without an id answers the oldest one.
  const unanswered = new Map<string, string[]>();
  body.contents.forEach((content, at) => {
    if (!isJsonObject(content) || !Array.isArray(content.parts) || !content.parts.every(isJsonObject))
      throw new Error(`contents[${at}] needs a list of parts`);
    const id = `msg_${at}`;
    if (content.role === "model") messages.push(...readModelTurn(content.parts, id, at, unanswered));
    else if (content.role === "user" || content.role === undefined) messages.push(...readUserTurn(content.parts, id, at, unanswered));
    else throw new Error(`contents[${at}] has an unknown role`);
  });
  const tools: ToolDescriptor[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isJsonObject(tool) || !Array.isArray(tool.functionDeclarations)) continue;
    for (const declaration of tool.functionDeclarations) {
      if (!isJsonObject(declaration) || typeof declaration.name !== "string") throw new Error("A function declaration needs a name");
      const parameters = declaration.parametersJsonSchema ?? declaration.parameters;
      tools.push({
        name: declaration.name,
        description: typeof declaration.description === "string" ? declaration.description : "",
        parameters: isJsonObject(parameters) ? parameters : { type: "object" },
        client: false,
      });
    }
  }
  return { model: path[1]!, ...(system && { system }), messages, tools, stream: path[2] === "streamGenerateContent" };
}

function textOfParts(parts: unknown): string {
  return Array.isArray(parts)
    ? parts
        .filter((part) => isJsonObject(part) && typeof part.text === "string" && part.thought !== true)
        .map((part) => (part as { text: string }).text)
        .join("")
    : "";
}

function readUserTurn(parts: Record<string, unknown>[], id: string, at: number, unanswered: Map<string, string[]>): Message[] {
  const out: Message[] = [];
  for (const part of parts) {
    const answer = part.functionResponse;
    if (!isJsonObject(answer)) continue;
    if (typeof answer.name !== "string") throw new Error(`A functionResponse in contents[${at}] needs a name`);
    const waiting = unanswered.get(answer.name) ?? [];
    const callId = typeof answer.id === "string" ? answer.id : waiting[0];
    if (!callId) throw new Error(`A functionResponse in contents[${at}] answers no call of ${answer.name}`);
    unanswered.set(
      answer.name,
      waiting.filter((waitingId) => waitingId !== callId),
    );
    const result = isJsonObject(answer.response) ? answer.response : {};
    const failed = "error" in result;
    const value = failed ? result.error : "output" in result ? result.output : result;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    out.push({ id: `${id}_${out.length}`, role: "tool", toolCallId: callId, content: text, ...(failed && { error: text }) });
  }
  const text = textOfParts(parts);
  if (text) out.push({ id, role: "user", content: text });
  return out;
}

function readModelTurn(parts: Record<string, unknown>[], id: string, at: number, unanswered: Map<string, string[]>): Message[] {
  const out: Message[] = [];
  const thoughts = parts.filter((part) => part.thought === true && typeof part.text === "string").map((part) => part.text as string);
  if (thoughts.length) out.push({ id: `${id}_thought`, role: "reasoning", content: thoughts.join("") });
  const toolCalls: ToolCall[] = [];
  parts.forEach((part, index) => {
    const call = part.functionCall;
    if (!isJsonObject(call)) return;
    if (typeof call.name !== "string") throw new Error(`A functionCall in contents[${at}] needs a name`);
    const callId = typeof call.id === "string" ? call.id : `${id}_call_${index}`;
    unanswered.set(call.name, [...(unanswered.get(call.name) ?? []), callId]);
    toolCalls.push({
      id: callId,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
      ...(typeof part.thoughtSignature === "string" && { encryptedValue: part.thoughtSignature }),
    });
  });
  const text = textOfParts(parts);
  const message: AssistantMessage = { id, role: "assistant", ...(text && { content: text }) };
  if (toolCalls.length) message.toolCalls = toolCalls;
  out.push(message);
  return out;
}
