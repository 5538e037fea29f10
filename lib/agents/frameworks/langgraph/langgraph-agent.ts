import { EventType, type AGUIEvent, type Interrupt, type Message, type RunAgentInput } from "@ag-ui/core";
import { ToolMessage, isToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Command, type StateSnapshot } from "@langchain/langgraph";
import type { AgentStates } from "../../../db/agent-states";
import { EventQueue } from "../../../streams/event-queue";
import type { Agent, AgentContext, AgentInfo } from "../../agent";
import { AGENT_FAILED_MESSAGE, AGENT_QUEUE_CAPACITY, RESUME_IGNORED_EVENT } from "../../agent-function";
import { AgentRun, RunStopped } from "../../agent-run";
import { newId } from "../../conversation";
import { ModelError } from "../../model";
import { providerError } from "../../models/common";
import { AgentStatesSaver, RUN_ID_KEY } from "./checkpoint-saver";
import { isConsoleApprovals, unansweredCalls, type ConsoleGraphContext } from "./console-tools";
import { GraphEvents } from "./graph-events";
import { stateMessages, toAguiMessage, toLangChainMessage } from "./messages";

/** Graph steps (supersteps) one run may take before it stops with an error. */
export const DEFAULT_RECURSION_LIMIT = 40;

/** The CUSTOM event that says messages sent while the graph waits for an answer were not taken. */
export const MESSAGES_NOT_TAKEN_EVENT = "agui-console.messages_not_taken";

/** What the adapter needs of a compiled LangGraph graph (a CompiledStateGraph has it all). */
export interface RunnableGraph {
  checkpointer?: unknown;
  getState(config: RunnableConfig): Promise<StateSnapshot>;
  updateState(config: RunnableConfig, values: unknown, asNode?: string): Promise<RunnableConfig>;
  stream(input: unknown, options?: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
}

export interface LangGraphAgentOptions {
  /** Where pauses are recorded, so that one pause is resumed once (services.agentStates). */
  states: AgentStates;
  recursionLimit?: number;
  /**
   * The model provider the graph calls, to label token usage and to word its errors as the
   * console's drivers do (`keyVariable` names the setting that holds its key).
   */
  provider?: { name: string; keyVariable: string; id?: string; model?: string };
}

/** One open interrupt of the graph: the task that raised it and what it asked. */
interface OpenInterrupt {
  id: string;
  node: string;
  value: unknown;
  responseSchema?: Record<string, unknown>;
}

/**
 * Serve a compiled LangGraph graph as an AG-UI agent. The graph must be compiled with a
 * checkpointer (an AgentStatesSaver keeps it across restarts): the AG-UI thread is the graph's
 * thread, and the graph's state is the thread's history. A run sends the graph only the messages
 * it has not seen (by id, and tool answers by call id), streams what the nodes do, and ends with a
 * MESSAGES_SNAPSHOT read from the graph's state.
 *
 * `interrupt(value)` in a node ends the run with an AG-UI interrupt (id = the LangGraph interrupt
 * id, the value in metadata); a resume entry's payload goes back as `Command({ resume })`, by
 * interrupt id. Each pause is taken once (AgentStates.take), so a replayed or concurrent resume
 * cannot run the interrupted node twice. A cancelled entry ends the paused step without running
 * it. While an interrupt is open, new messages are not taken: the run re-lists the interrupt.
 */
export function langGraphAgent(info: AgentInfo, graph: RunnableGraph, options: LangGraphAgentOptions): Agent {
  if (!graph.checkpointer) throw new Error(`The graph of agent ${info.name} needs a checkpointer: compile it with { checkpointer }`);
  return {
    info,
    run(input: RunAgentInput, ctx: AgentContext): AsyncIterable<AGUIEvent> {
      const queue = new EventQueue<AGUIEvent>(AGENT_QUEUE_CAPACITY);
      const run = new AgentRun({ input, ctx, queue });
      void new GraphRun(info.name, graph, options, run, queue).drive();
      return queue;
    },
  };
}

class GraphRun {
  private readonly config: RunnableConfig & Record<string, unknown>;
  /** The interrupts the run ends with. */
  private interrupts: Interrupt[] = [];
  /** The graph's own interrupts among them (not the console's approvals): the pauses to record. */
  private pauses: string[] = [];
  private pausesKept = false;
  private finalMessages: Message[] | undefined;

  constructor(
    private readonly agent: string,
    private readonly graph: RunnableGraph,
    private readonly options: LangGraphAgentOptions,
    private readonly run: AgentRun,
    private readonly queue: EventQueue<AGUIEvent>,
  ) {
    const { input, ctx } = run;
    const context: ConsoleGraphContext = { executor: ctx.executor, runContext: run.runContext };
    this.config = {
      configurable: { thread_id: input.threadId, [RUN_ID_KEY]: input.runId },
      context: { console: context },
      signal: ctx.signal,
      recursionLimit: options.recursionLimit ?? DEFAULT_RECURSION_LIMIT,
    };
  }

  async drive(): Promise<void> {
    const { run } = this;
    const { ctx, input } = run;
    // Tool calls the client holds an answer for: the bridge may have streamed it in this run.
    const answered = new Map<string, string>();
    for (const m of input.messages) if (m.role === "tool") answered.set(m.toolCallId, m.id);
    const events = new GraphEvents(run, new Set(answered.keys()), this.options.provider);
    try {
      run.emit({ type: EventType.RUN_STARTED, threadId: run.threadId, runId: run.runId, protocolVersion: "1.0" });
      try {
        await this.answerAndContinue(events);
        if (ctx.signal.aborted) throw new RunStopped();
        const snapshot = await this.graph.getState(this.config);
        this.finalMessages = this.snapshotMessages(snapshot, answered);
        const open = openInterrupts(snapshot);
        this.pauses = open.filter((i) => !isConsoleApprovals(i.value)).map((i) => i.id);
        this.interrupts = this.aguiInterrupts(open);
        // Recorded before the run ends: a resume sent the moment the client hears the end finds them.
        await this.keepPauses().catch((error: unknown) =>
          ctx.logger.error("could not record the graph's pauses", { threadId: run.threadId, error }),
        );
        this.finish(events, this.interrupts.length ? "interrupt" : "success");
      } catch (error) {
        if (error instanceof RunStopped || ctx.signal.aborted) this.finish(events, "cancelled");
        else this.fail(events, error);
      }
    } catch (error) {
      ctx.logger.error("graph run could not finish", { threadId: run.threadId, runId: run.runId, error });
    } finally {
      try {
        if (!this.pausesKept) await this.keepPauses();
        if (this.graph.checkpointer instanceof AgentStatesSaver) await this.graph.checkpointer.prune(run.threadId);
      } catch (error) {
        ctx.logger.error("could not record the graph's pauses", { threadId: run.threadId, error });
      }
      this.queue.close();
    }
  }

  /**
   * Apply the resume entries to the graph's open interrupts, then give the graph the messages it
   * has not seen, when nothing is left waiting.
   */
  private async answerAndContinue(events: GraphEvents): Promise<void> {
    const { run } = this;
    let open = openInterrupts(await this.graph.getState(this.config));
    const resume: Record<string, unknown> = {};
    const cancelled = new Set<string>();
    for (const entry of run.input.resume ?? []) {
      const target = open.find((i) => i.id === entry.interruptId && !isConsoleApprovals(i.value));
      if (!target) {
        this.ignore(entry.interruptId, "no open interrupt with this id on this thread");
        continue;
      }
      if (!(await this.takePause(target.id))) {
        this.ignore(entry.interruptId, "this interrupt was answered already");
        continue;
      }
      if (entry.status === "cancelled") cancelled.add(target.id);
      else resume[target.id] = entry.payload ?? null;
    }
    // Calls that waited for the console's approval: the bridge answered them before this run
    // began (it runs no agent while one is open), and the node that asked finds their outcome in
    // the call record when it runs again.
    for (const i of open) if (isConsoleApprovals(i.value)) resume[i.id] = { answered: true };

    if (Object.keys(resume).length) await this.stream(new Command({ resume }), events);
    if (cancelled.size) {
      open = openInterrupts(await this.graph.getState(this.config));
      // LangGraph keeps or drops a paused step whole: ending it drops each task that waits in it.
      if (open.some((i) => cancelled.has(i.id))) await this.graph.updateState(this.config, null, "__end__");
    }

    const snapshot = await this.graph.getState(this.config);
    open = openInterrupts(snapshot);
    const unseen = unseenMessages(run.input.messages, stateMessages(snapshot.values));
    if (!unseen.length) return;
    if (open.length) {
      run.custom(MESSAGES_NOT_TAKEN_EVENT, {
        messageIds: unseen.map((m) => m.id),
        reason: "the agent waits for an answer to its interrupts: resume or cancel them, then send the message again",
      });
      return;
    }
    // Calls left without an answer by a cancelled step are answered before the new messages, so the
    // conversation stays one a model accepts.
    const cancellations = unansweredCalls(stateMessages(snapshot.values)).map(
      (call) =>
        new ToolMessage({
          id: newId("msg"),
          tool_call_id: call.id,
          name: call.name,
          status: "error",
          content: JSON.stringify({ ok: false, error: { kind: "cancelled", message: "The person cancelled this step" } }),
        }),
    );
    for (const m of cancellations)
      run.emit({
        type: EventType.TOOL_CALL_RESULT,
        messageId: m.id!,
        toolCallId: m.tool_call_id,
        content: String(m.content),
        role: "tool",
      });
    const fresh = unseen.flatMap((m) => toLangChainMessage(m) ?? []);
    if (cancellations.length || fresh.length) await this.stream({ messages: [...cancellations, ...fresh] }, events);
  }

  private async stream(input: unknown, events: GraphEvents): Promise<void> {
    const stream = await this.graph.stream(input, { ...this.config, streamMode: ["messages", "updates", "tasks"] });
    for await (const item of stream) {
      events.take(item);
      // Backpressure: while the reader is behind, the graph waits here.
      if (this.queue.full) await this.queue.writable(this.run.ctx.signal);
    }
  }

  private ignore(interruptId: string, reason: string): void {
    this.run.ctx.logger.warn("resume entry ignored", { threadId: this.run.threadId, runId: this.run.runId, interruptId, reason });
    this.run.custom(RESUME_IGNORED_EVENT, { interruptId, reason });
  }

  /**
   * Take the pause of a graph interrupt for this run: false when another run took it first. A pause
   * with no record (the console stopped before the run that paused could record it) is taken.
   */
  private async takePause(id: string): Promise<boolean> {
    const { states } = this.options;
    const key = pauseKey(id);
    if (!(await states.get(this.agent, this.run.threadId, key))) return true;
    return (await states.take(this.agent, this.run.threadId, key, this.run.runId)) !== undefined;
  }

  /** Record the graph's open interrupts as paused, and forget the pauses that were answered. */
  private async keepPauses(): Promise<void> {
    const { states } = this.options;
    const { threadId, runId } = this.run;
    const open = new Set(this.pauses);
    this.pausesKept = true;
    for (const row of await states.list(this.agent, threadId, PAUSE))
      if (!open.has(row.key.slice(PAUSE.length)) && row.status !== "paused") await states.delete(this.agent, threadId, row.key);
    for (const id of open) {
      // A pause another run took is that run's to record again: this one only refused it.
      const row = await states.get(this.agent, threadId, pauseKey(id));
      if (!row || row.runId === runId) await states.put(this.agent, threadId, pauseKey(id), runId, {}, "paused");
    }
  }

  /** The AG-UI interrupts for the graph's open ones: the console's approvals as the console shows them. */
  private aguiInterrupts(open: OpenInterrupt[]): Interrupt[] {
    return open.flatMap((i): Interrupt[] => (isConsoleApprovals(i.value) ? i.value.interrupts : [toAguiInterrupt(i)]));
  }

  private snapshotMessages(snapshot: StateSnapshot, answered: ReadonlyMap<string, string>): Message[] {
    const messages = stateMessages(snapshot.values);
    // A graph without a messages channel keeps no conversation: the client's stays as it is.
    if (!messages.length) return [...this.run.input.messages];
    return messages.flatMap((m) => toAguiMessage(m, (isToolMessage(m) && answered.get(m.tool_call_id)) || m.id) ?? []);
  }

  private finish(events: GraphEvents, outcome: "success" | "interrupt" | "cancelled"): void {
    const { run } = this;
    events.close();
    run.closeOpenItems();
    if (outcome === "interrupt") run.emit({ type: EventType.STATE_SNAPSHOT, snapshot: run.state });
    run.emit({ type: EventType.MESSAGES_SNAPSHOT, messages: this.finalMessages ?? [...run.input.messages] });
    const usage = run.usage && { usage: run.usage };
    run.emit({
      type: EventType.RUN_FINISHED,
      threadId: run.threadId,
      runId: run.runId,
      ...usage,
      outcome: outcome === "interrupt" ? { type: "interrupt", interrupts: this.interrupts } : { type: outcome },
    });
  }

  private fail(events: GraphEvents, error: unknown): void {
    const { run } = this;
    const { ctx } = run;
    const failure = this.describe(error);
    if (failure.model) ctx.logger.warn("graph model failed", { threadId: run.threadId, runId: run.runId, code: failure.code });
    else ctx.logger.error("graph failed", { threadId: run.threadId, runId: run.runId, error });
    events.close();
    run.closeOpenItems();
    run.emit({ type: EventType.RUN_ERROR, message: failure.message, code: failure.code, ...(run.usage && { usage: run.usage }) });
  }

  /** What a client is told of a failure: a model's error as the drivers word it, a step limit, or nothing more. */
  private describe(error: unknown): { message: string; code: string; model: boolean } {
    if (error instanceof ModelError) return { message: error.message, code: error.code, model: true };
    if ((error as { name?: unknown })?.name === "GraphRecursionError")
      return {
        message: `The agent stopped after ${this.config.recursionLimit} graph steps without finishing`,
        code: "step_limit",
        model: false,
      };
    const provider = this.options.provider;
    const status = (error as { status?: unknown })?.status;
    // The OpenAI SDK's connection failures (LangChain passes them on with their name).
    const name = (error as { name?: unknown })?.name;
    const unreachable = name === "APIConnectionError" || name === "APIConnectionTimeoutError";
    if (provider && (typeof status === "number" || unreachable)) {
      const model = providerError(provider.name, provider.keyVariable, error);
      return { message: model.message, code: model.code, model: true };
    }
    return { message: AGENT_FAILED_MESSAGE, code: "agent_error", model: false };
  }
}

const PAUSE = "pause/";

function pauseKey(interruptId: string): string {
  return `${PAUSE}${interruptId}`;
}

/** The interrupts of the graph's paused tasks (none when it is not paused). */
function openInterrupts(snapshot: StateSnapshot): OpenInterrupt[] {
  return snapshot.tasks.flatMap((task) =>
    task.interrupts.flatMap((i) =>
      i.id
        ? [
            {
              id: i.id,
              node: task.name,
              value: i.value,
              ...(i.response_schema && typeof i.response_schema === "object"
                ? { responseSchema: i.response_schema as Record<string, unknown> }
                : {}),
            },
          ]
        : [],
    ),
  );
}

/**
 * A graph interrupt as an AG-UI interrupt. The value rides in metadata; a value that is an object
 * may name its `reason`, `message` (or `question`) and `responseSchema`.
 */
function toAguiInterrupt(open: OpenInterrupt): Interrupt {
  const value = open.value;
  const fields = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const message = typeof value === "string" ? value : [fields.message, fields.question].find((m): m is string => typeof m === "string");
  const schema =
    open.responseSchema ??
    (typeof fields.responseSchema === "object" && fields.responseSchema !== null ? fields.responseSchema : undefined);
  return {
    id: open.id,
    reason: typeof fields.reason === "string" ? fields.reason : schema ? "input_required" : "langgraph:interrupt",
    ...(message ? { message } : {}),
    ...(schema ? { responseSchema: schema as Record<string, unknown> } : {}),
    metadata: { node: open.node, value: value ?? null },
  };
}

/**
 * The client's messages the graph has not seen: not in its state by id, and, for tool messages,
 * answering no call the state answers already (the bridge's answer to an approval and the node's
 * own ToolMessage for the same call are one answer).
 */
function unseenMessages(messages: readonly Message[], state: readonly BaseMessage[]): Message[] {
  const ids = new Set(state.flatMap((m) => (m.id ? [m.id] : [])));
  const answered = new Set(state.flatMap((m) => (isToolMessage(m) ? [m.tool_call_id] : [])));
  return messages.filter(
    (m) => !ids.has(m.id) && !(m.role === "tool" && answered.has(m.toolCallId)) && toLangChainMessage(m) !== undefined,
  );
}
