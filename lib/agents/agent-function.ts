import { EventType, type AGUIEvent, type RunAgentInput } from "@ag-ui/core";
import type { Agent, AgentContext, AgentInfo } from "./agent";
import { EventQueue } from "../streams/event-queue";
import { AgentRun, RunPaused, RunStopped } from "./agent-run";
import { ModelError } from "./model";

/** The body of an agent: uses the run's methods; returning ends the run with success. */
export type AgentFunction = (run: AgentRun) => Promise<void>;

export interface AgentFunctionOptions {
  /** Delay between streamed deltas (a readable typing effect); 0 streams as fast as possible. */
  streamDelayMs?: number;
}

/**
 * Events an agent function may have waiting for the bridge before its streaming calls wait for
 * room (see EventQueue.writable): what a client that stops reading can make the agent hold.
 */
export const AGENT_QUEUE_CAPACITY = 1024;

/** The message a client sees when an agent fails; details go to the server log only. */
export const AGENT_FAILED_MESSAGE = "The agent failed while answering. The server log has the details.";

/** The CUSTOM event that tells the client a resume entry was ignored, and why. */
export const RESUME_IGNORED_EVENT = "agui-console.resume_ignored";

/**
 * Make an Agent from an agent function. The run opens with RUN_STARTED, then ends with
 * MESSAGES_SNAPSHOT and exactly one RUN_FINISHED (success, interrupt or cancelled) or RUN_ERROR.
 * An agent function has no interrupts of its own: a resume entry it is handed answers nothing,
 * and says so with a RESUME_IGNORED_EVENT.
 */
export function agentFunction(info: AgentInfo, fn: AgentFunction, options: AgentFunctionOptions = {}): Agent {
  return {
    info,
    run(input: RunAgentInput, ctx: AgentContext): AsyncIterable<AGUIEvent> {
      const queue = new EventQueue<AGUIEvent>(AGENT_QUEUE_CAPACITY);
      const run = new AgentRun({ input, ctx, queue, streamDelayMs: options.streamDelayMs });
      void drive(run, fn, queue);
      return queue;
    },
  };
}

async function drive(run: AgentRun, fn: AgentFunction, queue: EventQueue<AGUIEvent>): Promise<void> {
  const { ctx } = run;
  try {
    run.emit({
      type: EventType.RUN_STARTED,
      threadId: run.threadId,
      runId: run.runId,
      protocolVersion: "1.0",
      ...(run.input.parentRunId ? { parentRunId: run.input.parentRunId } : {}),
    });
    try {
      for (const entry of run.input.resume ?? [])
        run.custom(RESUME_IGNORED_EVENT, { interruptId: entry.interruptId, reason: "no open interrupt with this id on this thread" });
      await fn(run);
      if (ctx.signal.aborted) throw new RunStopped();
      finish(run, "success");
    } catch (error) {
      if (error instanceof RunPaused) finish(run, run.interrupts.length ? "interrupt" : "success");
      else if (error instanceof RunStopped || ctx.signal.aborted) finish(run, "cancelled");
      else {
        // A model error's message is written for the client (it names the provider, its status and
        // what to set); anything else stays in the server log.
        const model = error instanceof ModelError ? error : undefined;
        if (model) ctx.logger.warn("model failed", { threadId: run.threadId, runId: run.runId, code: model.code, status: model.status });
        else ctx.logger.error("agent failed", { threadId: run.threadId, runId: run.runId, error });
        run.closeOpenItems();
        run.emit({
          type: EventType.RUN_ERROR,
          message: model?.message ?? AGENT_FAILED_MESSAGE,
          code: model?.code ?? "agent_error",
          ...(run.usage && { usage: run.usage }),
        });
      }
    }
  } catch (error) {
    ctx.logger.error("agent run could not finish", { threadId: run.threadId, runId: run.runId, error });
  } finally {
    queue.close();
  }
}

function finish(run: AgentRun, outcome: "success" | "interrupt" | "cancelled"): void {
  run.closeOpenItems();
  if (outcome === "interrupt") run.emit({ type: EventType.STATE_SNAPSHOT, snapshot: run.state });
  // Also for a cancelled run: the thread keeps what was said before the stop.
  run.emit({ type: EventType.MESSAGES_SNAPSHOT, messages: [...run.messages()] });
  const usage = run.usage && { usage: run.usage };
  if (outcome === "cancelled") {
    run.emit({ type: EventType.RUN_FINISHED, threadId: run.threadId, runId: run.runId, outcome: { type: "cancelled" }, ...usage });
    return;
  }
  run.emit({
    type: EventType.RUN_FINISHED,
    threadId: run.threadId,
    runId: run.runId,
    ...usage,
    outcome:
      outcome === "interrupt"
        ? { type: "interrupt", interrupts: [...run.interrupts] }
        : { type: "success", ...(run.pendingClientCalls.length ? { pendingToolCallIds: [...run.pendingClientCalls] } : {}) },
  });
}
