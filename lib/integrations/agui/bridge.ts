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
import { applyResume } from "./resume";

export interface BridgeDeps {
  executor: Executor;
  approvals: ApprovalStore;
  grants: GrantStore;
  runs: RunStore;
  logger: Logger;
}

/** The caller may not run on this thread: it belongs to someone else. */
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
   * Open a run: checks the thread's owner and records the run. Throws ThreadForbidden, or
   * RunIdTaken for a reused run id; nothing is streamed then.
   */
  open(agent: Agent, input: RunAgentInput, principal: Principal): BridgeRun {
    const owner = this.deps.runs.threadOwner(input.threadId);
    if (owner !== undefined && !mayActFor(principal, owner)) throw new ThreadForbidden(input.threadId);
    const firstUser = input.messages.find((m) => m.role === "user");
    const title = firstUser && typeof firstUser.content === "string" ? firstUser.content : undefined;
    this.deps.runs.start({
      runId: input.runId,
      threadId: input.threadId,
      agent: agent.info.name,
      principal: principal.id,
      parentRunId: input.parentRunId,
      title,
    });
    return new BridgeRun(this, agent, input, principal);
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
}

/** One run in flight: `stream(signal)` starts the agent and yields SSE text as events are recorded. */
export class BridgeRun {
  constructor(
    private readonly bridge: AguiBridge,
    private readonly agent: Agent,
    readonly input: RunAgentInput,
    readonly principal: Principal,
  ) {}

  /**
   * Start the agent. Yields SSE text, one chunk per batch of events the agent had ready, and ends
   * after the terminal event. Each event is serialised once, for the wire and the record alike.
   * The agent is drained to its end even when the consumer stops reading (so the outcome is
   * recorded); aborting `signal` stops the agent.
   */
  stream(signal: AbortSignal, options: StreamOptions = {}): AsyncIterable<string> {
    const out = new EventQueue<string>();
    void this.drive(signal, out, options.legacy === true);
    return out;
  }

  private async drive(signal: AbortSignal, out: EventQueue<string>, legacy: boolean): Promise<void> {
    const { executor, approvals, grants, runs, logger } = this.bridge.dependencies;
    const { input, principal } = this;
    const controller = new AbortController();
    const stop = () => controller.abort(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
    const untrack = this.bridge.track(input.runId, controller);

    let seq = 0;
    let started = false;
    let terminal: AGUIEvent | undefined;
    let messages: Message[] | undefined;
    let messagesJson: string | undefined;
    let state: unknown = input.state ?? {};
    let toolCalls = 0;
    const record = new RecordBatch();

    /** Record a batch and pass it on (a failure to record is logged by the run store, not fatal). */
    const send = (batch: readonly AGUIEvent[]): void => {
      let frames = "";
      for (const event of batch) {
        if (terminal) {
          logger.warn("agent sent an event after its terminal event; dropped", { runId: input.runId, type: event.type });
          continue;
        }
        switch (event.type) {
          case EventType.RUN_STARTED:
            // The bridge opened the run; the agent's own RUN_STARTED says it again.
            if (started) continue;
            started = true;
            break;
          case EventType.MESSAGES_SNAPSHOT:
            messages = event.messages;
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
        // The record keeps the 1.0 form; a pre-1.0 client gets the few events it needs changed.
        const json = record.add(event);
        if (event.type === EventType.MESSAGES_SNAPSHOT) messagesJson = record.encoder.messagesJson;
        frames += legacy && needsDowngrade(event) ? encodeFrame(toPre10(event)) : `data: ${json}\n\n`;
      }
      const recorded = record.take();
      if (!recorded) return;
      runs.appendRecord(input.runId, seq, recorded.count, recorded.json);
      seq += recorded.count;
      out.push(frames);
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
      const conversation = new Conversation(input.messages);
      const resumed = await applyResume(
        { executor, approvals, grants, logger },
        {
          threadId,
          runId,
          principal,
          signal: controller.signal,
          entries: input.resume ?? [],
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
          for (let batch = await events.nextBatch(); batch; batch = await events.nextBatch()) send(batch);
        } else {
          for await (const event of events) send([event]);
        }
      }
    } catch (error) {
      logger.error("agent stream failed", { runId: input.runId, error });
    }
    if (!terminal)
      send([{ type: EventType.RUN_ERROR, message: AGENT_FAILED_MESSAGE, code: "agent_error", timestamp: Date.now() } as AGUIEvent]);
    signal.removeEventListener("abort", stop);
    untrack();
    out.close();
    try {
      runs.finish(input.runId, { ...outcomeOf(terminal!), messages, messagesJson, state, toolCallCount: toolCalls });
    } catch (error) {
      logger.error("could not record the end of a run", { runId: input.runId, error });
    }
  }
}

function outcomeOf(terminal: AGUIEvent): {
  status: "finished" | "interrupted" | "error" | "cancelled";
  outcome?: Record<string, unknown>;
  error?: string;
} {
  if (terminal.type === EventType.RUN_ERROR) return { status: "error", error: terminal.message };
  if (terminal.type !== EventType.RUN_FINISHED) return { status: "error" };
  const outcome = terminal.outcome ?? { type: "success" as const };
  const status = outcome.type === "interrupt" ? "interrupted" : outcome.type === "cancelled" ? "cancelled" : "finished";
  return { status, outcome: outcome as Record<string, unknown> };
}
