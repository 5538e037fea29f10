import { EventType, type AGUIEvent, type Message, type RunAgentInput } from "@ag-ui/core";
import fastJsonPatch, { type Operation } from "fast-json-patch";
import type { Agent } from "../../agents/agent";
import { AGENT_FAILED_MESSAGE } from "../../agents/agent-function";
import { Conversation } from "../../agents/conversation";
import { interruptFor } from "../../agents/interrupts";
import { DomainError } from "../../errors";
import type { ApprovalStore, GrantStore } from "../../approvals";
import { mayActFor, type Principal } from "../../auth/principal";
import type { Executor } from "../../execution";
import type { Logger } from "../../log";
import { RecordBatch } from "../../runs/record-batch";
import type { RunStore } from "../../db/runs";
import { EventQueue } from "../../streams/event-queue";
import { encodeFrame, needsDowngrade, toPre10 } from "./legacy";
import { echoClientRunId, pinnedResume, withoutClientAnswers, type PinnedResume } from "./pinned-resume";
import { applyResume } from "./resume";

export interface BridgeDeps {
  executor: Executor;
  approvals: ApprovalStore;
  grants: GrantStore;
  runs: RunStore;
  logger: Logger;
}

/**
 * The caller may not run on this thread: it belongs to someone else. Thread and run ids are the
 * client's to choose (AG-UI) and unique across callers, so the first caller owns a thread and a
 * refusal cannot help saying that the id is in use; it says nothing more (no owner, title or runs),
 * and a reused run id is answered alike whoever ran it (RunIdTaken). Clients should pick ids nobody
 * can guess (the console's clients use random UUIDs): an id that can be guessed can be taken first.
 */
export class ThreadForbidden extends DomainError<"forbidden"> {
  override readonly name = "ThreadForbidden";
  constructor(readonly threadId: string) {
    super("forbidden", `Thread ${threadId} belongs to another caller`);
  }
}

/**
 * Runs agents for AG-UI callers: records the thread, the run and every event in order, stops the
 * agent when the caller goes away (the run is recorded as cancelled), and guarantees exactly one
 * terminal event even when an agent breaks its contract.
 */
export class AguiBridge {
  private readonly live = new Map<string, AbortController>();

  constructor(private readonly deps: BridgeDeps) {}

  /**
   * Open a run: checks the thread's owner and records the run. Rejects with ThreadForbidden, or
   * RunIdTaken for a reused run id; nothing is streamed then. A resume sent under the id of the
   * run it answers (CopilotKit's way, see pinned-resume.ts) is recorded as a new run instead, the
   * interrupted one as its parent, and its stream carries the id the client sent.
   */
  async open(agent: Agent, input: RunAgentInput, principal: Principal): Promise<BridgeRun> {
    const owner = await this.deps.runs.threadOwner(input.threadId);
    if (owner !== undefined && !mayActFor(principal, owner)) throw new ThreadForbidden(input.threadId);
    const firstUser = input.messages.find((m) => m.role === "user");
    const title = firstUser && typeof firstUser.content === "string" ? firstUser.content : undefined;
    const pinned = owner !== undefined ? await pinnedResume(this.deps, input, principal) : undefined;
    const recorded: RunAgentInput = pinned ? { ...input, runId: pinned.runId, parentRunId: pinned.clientRunId } : input;
    await this.deps.runs.start({
      runId: recorded.runId,
      threadId: recorded.threadId,
      agent: agent.info.name,
      principal: principal.id,
      parentRunId: recorded.parentRunId,
      title,
      inputState: recorded.state,
    });
    return new BridgeRun(this, agent, recorded, principal, pinned && { ...pinned, parentRunId: input.parentRunId }, owner === undefined);
  }

  /** Stop a running run (its stream ends with the cancelled outcome). Returns whether it was live. */
  cancel(runId: string): boolean {
    const controller = this.live.get(runId);
    controller?.abort(new Error("cancelled"));
    return controller !== undefined;
  }

  /** @internal */
  track(runId: string, controller: AbortController): () => void {
    this.live.set(runId, controller);
    return () => this.live.delete(runId);
  }

  /** @internal */
  get dependencies(): BridgeDeps {
    return this.deps;
  }
}

export interface StreamOptions {
  /** Write events as a pre-1.0 client accepts them (see legacy.ts); the record keeps the 1.0 form. */
  legacy?: boolean;
  /**
   * How long the stream may wait for a reader that takes nothing before the run is cancelled
   * (AGUI_STALL_MS). Default DEFAULT_STALL_MS.
   */
  stallMs?: number;
}

/** How long a stream waits for a reader that takes nothing, when the caller does not say. */
export const DEFAULT_STALL_MS = 30_000;

/**
 * Chunks of SSE text (each one batch of events) that may wait for the reader before the bridge
 * stops taking events from the agent. With the agent's own queue (AGENT_QUEUE_CAPACITY) this is
 * what a client that stops reading can make a run hold in memory.
 */
export const STREAM_CAPACITY = 8;

/** The abort reason of a run whose client stopped reading for longer than the stall limit. */
export class RunStalled extends Error {
  override readonly name = "RunStalled";
  constructor(readonly stallMs: number) {
    super(`The client took nothing from the stream for ${stallMs} ms; the run was cancelled`);
  }
}

/** One run in flight: `stream(signal)` starts the agent and yields SSE text as events are recorded. */
export class BridgeRun {
  constructor(
    private readonly bridge: AguiBridge,
    private readonly agent: Agent,
    readonly input: RunAgentInput,
    readonly principal: Principal,
    /** Set for a resume the client sent under the interrupted run's id: what it sent. */
    private readonly pinned?: PinnedResume & { parentRunId?: string },
    /** The thread had no run before this one (so no interrupt of its own can be open). */
    private readonly newThread = false,
  ) {}

  /**
   * Start the agent. Yields SSE text, one chunk per batch of events the agent had ready, and ends
   * after the terminal event. Each event is serialised once, for the wire and the record alike.
   *
   * The stream is bounded: while STREAM_CAPACITY chunks wait for the reader, the bridge takes
   * nothing more from the agent, which then waits in its turn. A reader that takes nothing for
   * `stallMs` gets the run cancelled (the agent's signal aborts, the run is recorded as cancelled)
   * and the stream fails with RunStalled. Aborting `signal` says the reader is gone: the agent is
   * stopped and drained into the record without waiting for anyone. The run's end is recorded in
   * every case.
   */
  stream(signal: AbortSignal, options: StreamOptions = {}): AsyncIterable<string> {
    const out = new EventQueue<string>(STREAM_CAPACITY);
    void this.drive(signal, out, options.legacy === true, options.stallMs ?? DEFAULT_STALL_MS);
    return out;
  }

  private async drive(signal: AbortSignal, out: EventQueue<string>, legacy: boolean, stallMs: number): Promise<void> {
    const { executor, approvals, grants, runs, logger } = this.bridge.dependencies;
    const { input, principal } = this;
    const controller = new AbortController();
    // The reader is gone: nothing goes to the wire any more, and the agent stops.
    let wireCut = false;
    const stop = () => {
      wireCut = true;
      out.close();
      controller.abort(signal.reason);
    };
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
    const untrack = this.bridge.track(input.runId, controller);

    let seq = 0;
    let started = false;
    let terminal: AGUIEvent | undefined;
    let stalled: RunStalled | undefined;
    let messages: Message[] | undefined;
    let messagesJson: string | undefined;
    let state: unknown = input.state ?? {};
    let toolCalls = 0;
    const record = new RecordBatch();

    /**
     * Record a batch and pass it on (a failure to record is logged by the run store, not fatal).
     * Throws when an event cannot be serialised (a value nested too deeply, say): the events
     * before it are recorded and sent, that one and the rest of the batch are not.
     */
    const send = (batch: readonly AGUIEvent[]): void => {
      let frames = "";
      try {
        for (const event of batch) {
          if (terminal) {
            logger.warn("agent sent an event after its terminal event; dropped", { runId: input.runId, type: event.type });
            continue;
          }
          // The bridge opened the run; the agent's own RUN_STARTED says it again.
          if (event.type === EventType.RUN_STARTED && started) continue;
          // Serialised first: an event that cannot be changes nothing of what the run keeps.
          // The record keeps the 1.0 form; a pre-1.0 client gets the few events it needs changed.
          const otherFrame = wireFrame(event);
          const json = record.add(event);
          frames += otherFrame ?? `data: ${json}\n\n`;
          // Streamed content (thousands of deltas a run): nothing below concerns it.
          if (record.encoder.content) continue;
          switch (event.type) {
            case EventType.RUN_STARTED:
              started = true;
              break;
            case EventType.MESSAGES_SNAPSHOT:
              messages = event.messages;
              messagesJson = record.encoder.messagesJson;
              break;
            case EventType.STATE_SNAPSHOT:
              state = event.snapshot;
              break;
            case EventType.STATE_DELTA:
              try {
                state = fastJsonPatch.applyPatch(structuredClone(state), event.delta as Operation[], false, false).newDocument;
              } catch (error) {
                logger.warn("state delta does not apply to the recorded state", { runId: input.runId, error });
              }
              break;
            case EventType.TOOL_CALL_START:
              toolCalls++;
              break;
            case EventType.RUN_FINISHED:
            case EventType.RUN_ERROR:
              terminal = event;
              break;
          }
        }
      } finally {
        const recorded = record.take();
        if (recorded) {
          runs.appendRecord(input.runId, seq, recorded.count, recorded.json);
          seq += recorded.count;
          if (!wireCut) out.push(frames);
        }
      }
    };

    /**
     * Before taking more from the agent: wait while the reader is STREAM_CAPACITY chunks behind.
     * After `stallMs` without the reader taking anything, the run is cancelled and the wire cut.
     */
    const room = async (): Promise<void> => {
      // Once the terminal event is out, what is left of the agent is dropped anyway: no wait.
      if (wireCut || terminal || !out.full) return;
      const taken = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), stallMs);
        void out.writable(controller.signal).then(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (taken || wireCut) return;
      stalled = new RunStalled(stallMs);
      logger.info("client stopped reading; run cancelled", { runId: input.runId, stallMs });
      wireCut = true;
      out.fail(stalled);
      controller.abort(stalled);
    };

    // The form an event takes on the wire when it differs from the record's (the 1.0 form, under
    // the run's own id): the client's run id for a pinned resume, a pre-1.0 client's shapes.
    const pinned = this.pinned;
    const wireFrame = (event: AGUIEvent): string | undefined => {
      if (!pinned && !legacy) return undefined;
      let wire = pinned ? echoClientRunId(event, pinned, pinned.parentRunId) : event;
      if (legacy && needsDowngrade(wire)) wire = toPre10(wire);
      return wire === event ? undefined : encodeFrame(wire);
    };

    const stamp = (event: AGUIEvent): AGUIEvent => ({ ...event, timestamp: Date.now() }) as AGUIEvent;
    try {
      const { threadId, runId } = input;
      send([
        stamp({
          type: EventType.RUN_STARTED,
          threadId,
          runId,
          protocolVersion: "1.0",
          ...(input.parentRunId ? { parentRunId: input.parentRunId } : {}),
        } as AGUIEvent),
      ]);
      // The console's own interrupts are answered here, so every agent gets resume for them.
      // A client's own answer to a call the console paused is replaced by the console's record.
      const conversation = new Conversation(await withoutClientAnswers(input.messages, input.resume ?? [], approvals, threadId));
      const resumed = await applyResume(
        { executor, approvals, grants, logger },
        {
          threadId,
          runId,
          principal,
          signal: controller.signal,
          entries: input.resume ?? [],
          newThread: this.newThread,
          conversation,
          emit: (event) => send([stamp(event)]),
        },
      );
      if (resumed.open.length) {
        // An interrupt the resume left open keeps the thread paused: the agent is not run.
        const interrupts = resumed.open.map((approval) => interruptFor(approval, executor.registry.get(approval.tool)));
        send([
          stamp({ type: EventType.STATE_SNAPSHOT, snapshot: input.state ?? {} }),
          stamp({ type: EventType.MESSAGES_SNAPSHOT, messages: [...conversation.messages] }),
          stamp({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: "interrupt", interrupts } } as AGUIEvent),
        ]);
      } else {
        const { resume: _answered, ...rest } = input;
        const agentInput: RunAgentInput = {
          ...rest,
          messages: [...conversation.messages],
          ...(resumed.foreign.length ? { resume: resumed.foreign } : {}),
        };
        const events = this.agent.run(agentInput, { principal, signal: controller.signal, executor, logger });
        if (events instanceof EventQueue) {
          // Our own agents: take what is ready in one go rather than one await per event.
          for (let batch = await events.nextBatch(); batch; batch = await events.nextBatch()) {
            send(batch);
            await room();
          }
        } else {
          for await (const event of events) {
            send([event]);
            await room();
          }
        }
      }
    } catch (error) {
      logger.error("agent stream failed", { runId: input.runId, error });
    } finally {
      try {
        if (!terminal)
          send([{ type: EventType.RUN_ERROR, message: AGENT_FAILED_MESSAGE, code: "agent_error", timestamp: Date.now() } as AGUIEvent]);
      } catch (error) {
        logger.error("could not send the end of a run", { runId: input.runId, error });
      }
      signal.removeEventListener("abort", stop);
      untrack();
      try {
        // A stalled run is cancelled whatever its agent ended with after the abort.
        const end = stalled
          ? { status: "cancelled" as const, outcome: { type: "cancelled" }, error: stalled.message }
          : terminal
            ? outcomeOf(terminal)
            : { status: "error" as const, error: AGENT_FAILED_MESSAGE };
        await runs.finish(input.runId, { ...end, messages, messagesJson, state, toolCallCount: toolCalls });
      } catch (error) {
        logger.error("could not record the end of a run", { runId: input.runId, error });
      }
      // The stream ends once the run's end is recorded (or could not be), so that a client reading
      // the run, or resuming it through another instance, as soon as its stream ends finds it ended.
      out.close();
    }
  }
}

/** How a run ended, from its terminal event: status, outcome or error, and the token usage it reported (the Runs page's column). */
function outcomeOf(terminal: AGUIEvent): {
  status: "finished" | "interrupted" | "error" | "cancelled";
  outcome?: Record<string, unknown>;
  error?: string;
  usage?: unknown[];
} {
  if (terminal.type !== EventType.RUN_ERROR && terminal.type !== EventType.RUN_FINISHED) return { status: "error" };
  const usage = Array.isArray(terminal.usage) && terminal.usage.length ? { usage: terminal.usage } : {};
  if (terminal.type === EventType.RUN_ERROR) return { status: "error", error: terminal.message, ...usage };
  const outcome = terminal.outcome ?? { type: "success" as const };
  const status = outcome.type === "interrupt" ? "interrupted" : outcome.type === "cancelled" ? "cancelled" : "finished";
  return { status, outcome: outcome as Record<string, unknown>, ...usage };
}
