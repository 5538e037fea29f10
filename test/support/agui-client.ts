import { HttpAgent, type AgentSubscriber, type RunAgentParameters, type RunAgentResult } from "@ag-ui/client";
import { EventType, type AGUIEvent, type Message, type RunAgentInput, type RunErrorEvent, type RunFinishedEvent } from "@ag-ui/core";
import { expect } from "vitest";

/** What one run looked like on the wire and to the real @ag-ui/client. */
export interface ObservedRun {
  /** The RunAgentInput the client posted. */
  input: RunAgentInput;
  status: number;
  contentType: string | null;
  /** The response body exactly as received. */
  raw: string;
  /** The events parsed from `raw` (comments skipped), in order. */
  events: AGUIEvent[];
  result: RunAgentResult;
  finished?: RunFinishedEvent;
  error?: RunErrorEvent;
}

export interface AgentOptions {
  /** Path after the base URL, e.g. "/api/agui/demo" (default). */
  path?: string;
  token?: string;
  threadId?: string;
  initialMessages?: Message[];
}

/**
 * An HttpAgent whose fetch keeps a copy of every request body and response body, so a test can
 * check the wire as well as what the client made of it.
 */
export class RecordingAgent extends HttpAgent {
  readonly exchanges: Array<{ input: RunAgentInput; status: number; contentType: string | null; raw: Promise<string> }> = [];

  constructor(baseUrl: string, options: AgentOptions = {}) {
    const exchanges: RecordingAgent["exchanges"] = [];
    super({
      url: `${baseUrl}${options.path ?? "/api/agui/demo"}`,
      headers: options.token ? { Authorization: `Bearer ${options.token}` } : {},
      threadId: options.threadId,
      initialMessages: options.initialMessages,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        exchanges.push({
          input: JSON.parse(String(init?.body)) as RunAgentInput,
          status: response.status,
          contentType: response.headers.get("content-type"),
          raw: response.clone().text(),
        });
        return response;
      },
    });
    this.exchanges = exchanges;
  }
}

/** Parse an SSE body as the AG-UI binding frames it (`data: <json>\n\n`, `: comment` lines ignored). */
export function parseFrames(raw: string): AGUIEvent[] {
  const events: AGUIEvent[] = [];
  for (const frame of raw.split("\n\n")) {
    if (!frame) continue;
    const data = frame
      .split("\n")
      .filter((line) => !line.startsWith(":"))
      .map((line) => {
        if (!line.startsWith("data: ")) throw new Error(`unexpected SSE line ${JSON.stringify(line.slice(0, 80))}`);
        return line.slice(6);
      });
    if (data.length) events.push(JSON.parse(data.join("\n")) as AGUIEvent);
  }
  return events;
}

/**
 * Run the agent once with the real client (its verifier rejects a protocol violation) and return
 * what went over the wire. Does not judge the stream: see `expectValidRun`.
 */
export async function observeRun(
  agent: RecordingAgent,
  params: RunAgentParameters = {},
  subscriber: AgentSubscriber = {},
): Promise<ObservedRun> {
  let finished: RunFinishedEvent | undefined;
  let error: RunErrorEvent | undefined;
  const before = agent.exchanges.length;
  const result = await agent.runAgent(params, {
    ...subscriber,
    onRunFinishedEvent: (p) => {
      finished = p.event as RunFinishedEvent;
      return subscriber.onRunFinishedEvent?.(p);
    },
    onRunErrorEvent: (p) => {
      error = p.event as RunErrorEvent;
      return subscriber.onRunErrorEvent?.(p);
    },
  });
  const exchange = agent.exchanges[before];
  if (!exchange) throw new Error("the client sent no request");
  const raw = await exchange.raw;
  return {
    input: exchange.input,
    status: exchange.status,
    contentType: exchange.contentType,
    raw,
    events: parseFrames(raw),
    result,
    finished,
    error,
  };
}

const OUTCOMES = new Set(["success", "interrupt", "cancelled"]);

/**
 * The endpoint's promises for every run, beyond what the client's verifier checks: 200 SSE with LF
 * framing, RUN_STARTED first with protocolVersion "1.0" and the input's ids, exactly one terminal
 * event and nothing after it, MESSAGES_SNAPSHOT before RUN_FINISHED, exact outcome literals.
 */
export function expectValidRun(run: ObservedRun): void {
  expect(run.status).toBe(200);
  expect(run.contentType).toMatch(/^text\/event-stream\b/);
  expect(run.raw).not.toContain("\r");
  expect(run.raw.endsWith("\n\n")).toBe(true);
  const [first] = run.events;
  expect(first).toMatchObject({
    type: EventType.RUN_STARTED,
    protocolVersion: "1.0",
    threadId: run.input.threadId,
    runId: run.input.runId,
  });
  const terminals = run.events.filter((e) => e.type === EventType.RUN_FINISHED || e.type === EventType.RUN_ERROR);
  expect(terminals).toHaveLength(1);
  const terminal = run.events.at(-1)!;
  expect(terminals[0]).toBe(terminal);
  for (const event of run.events) {
    expect(Number.isInteger(event.timestamp)).toBe(true);
    // Absent means absent: an optional field is omitted, never null.
    expect(Object.entries(event).filter(([, v]) => v === null)).toEqual([]);
  }
  if (terminal.type === EventType.RUN_FINISHED) {
    expect(terminal).toMatchObject({ threadId: run.input.threadId, runId: run.input.runId });
    const outcome = terminal.outcome ?? { type: "success" };
    expect(OUTCOMES.has(outcome.type)).toBe(true);
    expect(run.events.at(-2)?.type).toBe(EventType.MESSAGES_SNAPSHOT);
    if (outcome.type === "interrupt") expect(outcome.interrupts.length).toBeGreaterThan(0);
    expect(run.finished?.type).toBe(EventType.RUN_FINISHED);
    expect(run.error).toBeUndefined();
  } else {
    expect(run.error?.type).toBe(EventType.RUN_ERROR);
    expect(run.finished).toBeUndefined();
  }
}

/** The outcome of a run's RUN_FINISHED (success when absent); throws for a RUN_ERROR. */
export function outcomeOf(run: ObservedRun): NonNullable<RunFinishedEvent["outcome"]> {
  if (!run.finished) throw new Error(`the run did not finish: ${run.error?.message ?? "no terminal event"}`);
  return run.finished.outcome ?? { type: "success" };
}

/** Events of one type, typed. */
export function eventsOf<T extends AGUIEvent["type"]>(run: ObservedRun, type: T): Array<Extract<AGUIEvent, { type: T }>> {
  return run.events.filter((e): e is Extract<AGUIEvent, { type: T }> => e.type === type);
}

/** The text of the last assistant message the run streamed. */
export function lastText(run: ObservedRun): string {
  const starts = eventsOf(run, EventType.TEXT_MESSAGE_START);
  const last = starts.at(-1);
  if (!last) return "";
  return eventsOf(run, EventType.TEXT_MESSAGE_CONTENT)
    .filter((e) => e.messageId === last.messageId)
    .map((e) => e.delta)
    .join("");
}

/** A user message with a fresh id. */
export function userMessage(content: string): Message {
  return { id: `u_${crypto.randomUUID()}`, role: "user", content };
}

/** POST a RunAgentInput by hand (for statuses and replays the client would refuse to send). */
export async function postRun(
  baseUrl: string,
  body: unknown,
  init: { path?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${baseUrl}${init.path ?? "/api/agui/demo"}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
