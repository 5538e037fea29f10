import type { IncomingMessage, ServerResponse } from "node:http";
import type { Message } from "@ag-ui/core";
import type { ToolDescriptor } from "../../agents/model";

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** One model answer, streamed in the wire format the request came in. */
export interface ScriptedTurn {
  reasoning?: string;
  text?: string;
  /** Several calls in one turn are parallel tool calls. */
  toolCalls?: ScriptedToolCall[];
  /** Token counts reported at the end of the answer. */
  usage?: { input: number; output: number; reasoning?: number; cachedInput?: number };
  /** Characters per streamed delta (default 8). */
  chunk?: number;
  /**
   * Milliseconds between the events of a streamed answer, as a model generating in real time
   * spaces its tokens (default 0: each event as soon as the client takes the one before).
   */
  pauseMs?: number;
  /**
   * A provider error sent in the stream after the reasoning and text deltas, in place of the tool
   * calls and the end of the answer (streamed answers only), as a provider reports a failure it
   * meets mid-answer.
   */
  streamError?: { status: number; message: string };
}

/** A provider error: the HTTP status and the error body each wire format uses. */
export interface ScriptedFailure {
  error: { status: number; message: string };
}

export type ScriptedReply = ScriptedTurn | ScriptedFailure;

export function isFailure(reply: ScriptedReply): reply is ScriptedFailure {
  return "error" in reply;
}

/** A request as the scripted server read it, for tests to check what a driver sent. */
export interface RecordedRequest {
  format: WireFormatId;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** The conversation a request carries, read back into the console's terms. */
export interface ReadConversation {
  model: string;
  system?: string;
  messages: Message[];
  tools: ToolDescriptor[];
  /** Whether the client asked for a streamed answer. */
  stream: boolean;
}

export type WireFormatId = "openai-chat" | "openai-responses" | "anthropic" | "gemini";

/** One provider's wire format, as the scripted server speaks it. */
export interface WireFormat {
  id: WireFormatId;
  /** Whether this format answers a POST to `pathname` (e.g. ending in `/chat/completions`). */
  matches(pathname: string): boolean;
  read(body: Record<string, unknown>, url: URL): ReadConversation;
  /** Write `turn` as this format's answer (streamed or whole, as `conversation.stream` says). */
  write(turn: ScriptedTurn, conversation: ReadConversation, res: ServerResponse): Promise<void>;
  /** Write a provider error with the status and the body this format's SDK reads. */
  fail(failure: ScriptedFailure, res: ServerResponse): void;
}

/** Answers a request when no scripted reply is queued (the demo responder reads the conversation). */
export type Responder = (conversation: ReadConversation, req: IncomingMessage) => ScriptedReply | Promise<ScriptedReply>;

/** Split text into deltas of `size` characters. */
export function deltas(text: string, size = 8): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/** One event of a streamed answer: its data (sent as JSON, unless a string such as `[DONE]`) and its name, for formats that name their events. */
export interface StreamedEvent {
  data: unknown;
  event?: string;
}

/**
 * Stream `events` as a `text/event-stream` answer, the way a model server streams what it
 * generates: the next event is made only once the socket has taken the one before, and whenever
 * the client reads slower than the server writes, the server waits for it ('drain') instead of
 * holding the rest of the answer in memory. `pauseMs` spaces the events (ScriptedTurn.pauseMs).
 * Stops when the client goes away.
 */
export async function streamEvents(res: ServerResponse, events: Iterable<StreamedEvent>, pauseMs = 0): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const { data, event } of events) {
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    if (res.destroyed) return;
    const written = res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
    if (!written && !(await drained(res))) return;
  }
  res.end();
}

/** Resolves true once `res` can take more, false if the client went away first. */
function drained(res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (more: boolean) => () => {
      res.off("drain", onDrain).off("close", onClose);
      resolve(more);
    };
    const onDrain = settle(true);
    const onClose = settle(false);
    res.on("drain", onDrain).on("close", onClose);
  });
}

/** Answer with one JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
