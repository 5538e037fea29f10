import type { ContentPart, Interrupt } from "@ag-ui/core";
import type { ToolCallError, ToolCallStatus } from "./tool-result";

export type { ToolCallError, ToolCallStatus };

/** Where a run stands. `awaiting_input` means the run ended with interrupts a person must answer. */
export type RunStatus = "idle" | "running" | "awaiting_input" | "finished" | "cancelled" | "error";

/**
 * One entry of the conversation. Reasoning is an entry of its own (`role: "reasoning"`, the
 * text in `content`) placed where the agent produced it, just before the answer it led to;
 * encrypted reasoning stays on the server. Assistant entries list their tool calls by id.
 */
export interface ChatMessage {
  readonly id: string;
  readonly role: "user" | "assistant" | "system" | "developer" | "tool" | "reasoning";
  readonly content: string | ContentPart[];
  readonly name?: string;
  /** Assistant messages: the calls they made, in order (look them up in `toolCalls`). */
  readonly toolCallIds?: readonly string[];
  /** Tool messages: the call they answer. */
  readonly toolCallId?: string;
  /** Tool messages: the producer's error text, when it set one. */
  readonly error?: string;
  /** True while TEXT_MESSAGE_* / REASONING_MESSAGE_* events are still adding to it. */
  readonly streaming: boolean;
}

/** A tool call as the timeline shows it. */
export interface ToolCallView {
  readonly id: string;
  readonly name: string;
  /** The assistant message that made the call. */
  readonly parentMessageId: string;
  /** The arguments as streamed (JSON text). */
  readonly argsText: string;
  /** The arguments parsed once complete; absent while streaming or when the text is not JSON. */
  readonly args?: unknown;
  readonly argsError?: string;
  readonly status: ToolCallStatus;
  readonly result?: unknown;
  readonly error?: ToolCallError;
  /** The interrupt that asks a person about this call, while it is open. */
  readonly interruptId?: string;
  /** Client clock (ms) when the call started streaming, when it started running, and how long it ran. */
  readonly startedAt: number;
  readonly runningSince?: number;
  readonly durationMs?: number;
}

/** A person's answer to an interrupt, held until every open interrupt has one. */
export type InterruptAnswer = { status: "resolved"; payload?: unknown } | { status: "cancelled" };

/** An interrupt of the last run, with the answer given so far. */
export interface OpenInterrupt {
  readonly interrupt: Interrupt;
  readonly answer?: InterruptAnswer;
}

export interface CustomEventRecord {
  readonly name: string;
  readonly value: unknown;
  readonly timestamp?: number;
}

/** The last failure: a RUN_ERROR from the agent, or a transport error of the client. */
export interface AgentErrorInfo {
  readonly source: "run" | "transport";
  readonly name: string;
  readonly message: string;
  /** RUN_ERROR code. */
  readonly code?: string;
  /** AgentHTTPError status. */
  readonly status?: number;
  /** AgentStreamError reason. */
  readonly reason?: string;
}

/**
 * What `getSnapshot()` returns: a new object after every change, the same object otherwise.
 *
 * For O(1) work per event, `messages`, `toolCalls` and `customEvents` are live containers
 * updated in place; the entries inside them are never mutated once a snapshot has been read, but
 * replaced by a new object when they change. So: re-render on a new snapshot (or `version`),
 * memoise per entry by identity, do not key memos on the container itself, and read entries
 * through the latest `getSnapshot()` (an older snapshot's containers can show an entry that
 * later deltas are still growing).
 */
export interface AgentSnapshot {
  readonly version: number;
  readonly threadId: string;
  readonly runId?: string;
  readonly status: RunStatus;
  readonly currentStep?: string;
  readonly messages: readonly ChatMessage[];
  readonly toolCalls: ReadonlyMap<string, ToolCallView>;
  readonly state: unknown;
  readonly customEvents: readonly CustomEventRecord[];
  readonly interrupts: readonly OpenInterrupt[];
  readonly error?: AgentErrorInfo;
}
