import type { Interrupt, ResumeEntry, RunAgentInput } from "@ag-ui/core";
import {
  MaxTurnsExceededError,
  RunState,
  Runner,
  type Agent as SdkAgent,
  type AgentInputItem,
  type FunctionTool,
  type RunToolApprovalItem,
} from "@openai/agents";
import { APIError } from "openai";
import type { AgentStates } from "../../../db/agent-states";
import { isPending, type ToolResult } from "../../../execution";
import type { RegisteredTool } from "../../../tools/spec";
import type { Agent, AgentInfo } from "../../agent";
import { agentFunction, RESUME_IGNORED_EVENT } from "../../agent-function";
import { RunPaused, type AgentRun } from "../../agent-run";
import { interruptFor } from "../../interrupts";
import { providerError, textOf } from "../../models/common";
import { ConsoleCalls, consoleTools, parseArguments } from "./console-tools";
import type { OpenAIAgentsModel } from "./openai-model";
import { toAgentInput } from "./sdk-input";
import { StreamMapper } from "./stream-mapper";

/** Builds the SDK agent of one AG-UI run; `tools` are the registry's tools as that run's function tools. */
export type MakeSdkAgent = (tools: FunctionTool[]) => SdkAgent<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface OpenAIAgentsOptions {
  model: OpenAIAgentsModel;
  /** Where a paused run's state waits for its resume (services.agentStates). */
  states: AgentStates;
  /** Registry tools offered to the agent, by name; every enabled tool exported to OpenAI when absent. */
  toolNames?: readonly string[];
  /** Model turns in one AG-UI run (the SDK's maxTurns); default 10. */
  maxTurns?: number;
  /** Names the provider in usage entries and errors; default "openai". */
  provider?: string;
  /** The variable that holds the key, named when the provider refuses it; default OPENAI_API_KEY. */
  keyVariable?: string;
  /** Delay between streamed deltas (a readable typing effect); 0 streams as fast as possible. */
  streamDelayMs?: number;
}

/** The key a thread's paused SDK run state is kept under in agent_states. */
export const RUN_STATE_KEY = "openai-agents:run-state";

/** Rounds of "pause, settle at once, go on" in one AG-UI run (calls a grant lets through need no person). */
const MAX_SETTLE_ROUNDS = 8;

/** The answer an interrupt of the agent's own tools takes. */
const OWN_APPROVAL_SCHEMA = {
  type: "object",
  properties: { approved: { type: "boolean" } },
  required: ["approved"],
  additionalProperties: false,
};

/** Error kinds of a call that did not run because a person (or time) said no: the SDK rejects the call. */
const REFUSALS = new Set(["denied", "approval_expired", "cancelled"]);

/**
 * Serve an OpenAI Agents SDK agent behind the console's AG-UI endpoint. Each run streams the SDK's
 * run as AG-UI events (text, reasoning, tool and handoff calls, agent changes as steps, usage on
 * RUN_FINISHED). Registry tools run through the console's executor and wait for approval in the
 * console's inbox; the SDK's paused run state is kept in agent_states and taken once by the resume,
 * which approves or rejects each paused call as the thread's answer says and goes on from there.
 * Tools of the agent's own with `needsApproval` pause as AG-UI interrupts answered `{ approved }`.
 */
export function openAIAgentsAgent(info: AgentInfo, makeAgent: MakeSdkAgent, options: OpenAIAgentsOptions): Agent {
  const runner = new Runner({
    modelProvider: options.model.provider,
    model: options.model.name,
    tracingDisabled: true,
    ...(options.model.maxOutputTokens !== undefined && { modelSettings: { maxTokens: options.model.maxOutputTokens } }),
  });
  const provider = options.provider ?? "openai";
  return {
    info,
    run(input, ctx) {
      // The resume entries that reach an agent are its own interrupts': this agent answers them itself.
      const { resume, ...rest } = input;
      const entries = [...(resume ?? [])];
      const fn = (run: AgentRun) => runSdkAgent(run, entries, { name: info.name, runner, makeAgent, options, provider });
      return agentFunction(info, fn, { streamDelayMs: options.streamDelayMs }).run(rest as RunAgentInput, ctx);
    },
  };
}

interface Setup {
  /** The agent's name in the catalog: its states are kept under it. */
  name: string;
  runner: Runner;
  makeAgent: MakeSdkAgent;
  options: OpenAIAgentsOptions;
  provider: string;
}

async function runSdkAgent(run: AgentRun, entries: ResumeEntry[], setup: Setup): Promise<void> {
  const { name, runner, makeAgent, options, provider } = setup;
  const calls = new ConsoleCalls(run, run.ctx.logger);
  const agent = makeAgent(consoleTools(calls, offeredTools(run, options.toolNames)));
  const mapper = new StreamMapper(run, calls, { provider, name: options.model.name });
  const unused = new Set(entries);
  try {
    let input: AgentInputItem[] | RunState<unknown, SdkAgent> = toAgentInput(run.messages());
    const paused = await takePausedState(run, name, agent, options.states);
    if (paused) {
      const open = await settle(run, calls, paused, paused.getInterruptions(), entries, unused);
      if (open) return await pause(run, name, paused, options.states);
      input = paused;
    }
    for (let round = 0; ; round++) {
      const result = await stream(runner, agent, input, run, mapper, {
        provider,
        keyVariable: options.keyVariable,
        maxTurns: options.maxTurns,
      });
      if (!result) return;
      const open = await settle(run, calls, result.state, result.interruptions, [], unused);
      if (open) return await pause(run, name, result.state, options.states);
      if (round >= MAX_SETTLE_ROUNDS) throw new Error(`The SDK run paused more than ${MAX_SETTLE_ROUNDS} times in one AG-UI run`);
      input = result.state;
    }
  } finally {
    mapper.finish();
    for (const entry of unused)
      run.custom(RESUME_IGNORED_EVENT, { interruptId: entry.interruptId, reason: "no open interrupt with this id on this thread" });
  }
}

/** The registry tools this agent offers: those named, or every enabled tool exported to OpenAI. */
function offeredTools(run: AgentRun, names: readonly string[] | undefined): readonly RegisteredTool[] {
  const all = run.ctx.executor.registry.forTarget("openai");
  if (!names) return all;
  const wanted = new Set(names);
  return all.filter((tool) => wanted.has(tool.name));
}

/**
 * Run the SDK once, streaming its events through the mapper. Returns the result when the run
 * paused on approvals, nothing when it ended. A provider's failure ends the AG-UI run with a
 * ModelError saying what happened; too many turns end it with a message saying so.
 */
async function stream(
  runner: Runner,
  agent: SdkAgent,
  input: AgentInputItem[] | RunState<unknown, SdkAgent>,
  run: AgentRun,
  mapper: StreamMapper,
  limits: { provider: string; keyVariable?: string; maxTurns?: number },
) {
  try {
    mapper.enterAgent(input instanceof RunState ? input.currentAgent.name : agent.name);
    const result = await runner.run(agent, input, { stream: true, signal: run.ctx.signal, maxTurns: limits.maxTurns ?? 10 });
    for await (const event of result) await mapper.map(event);
    await result.completed;
    mapper.closeItems();
    return result.interruptions.length ? result : undefined;
  } catch (error) {
    mapper.closeItems();
    if (run.ctx.signal.aborted) throw error;
    if (error instanceof MaxTurnsExceededError) {
      await run.text(`I stopped after ${limits.maxTurns ?? 10} model turns without reaching an answer.`);
      return undefined;
    }
    if (isProviderFailure(error)) throw providerError(providerName(limits.provider), limits.keyVariable ?? "OPENAI_API_KEY", error);
    throw error;
  }
}

function isProviderFailure(error: unknown): boolean {
  for (let at = error, depth = 0; at && depth < 5; at = (at as { cause?: unknown }).cause, depth++) if (at instanceof APIError) return true;
  return false;
}

function providerName(provider: string): string {
  return provider === "openai" ? "OpenAI" : provider;
}

/**
 * Decide each paused call in `state` where the answer is known, and return whether any still waits:
 *  - a registry call the thread answers (the bridge ran or refused it after the person decided) is
 *    approved, and its tool hands the SDK that very answer, or rejected with it as the message;
 *  - a registry call with no answer yet asks the executor, which opens the console approval (the
 *    run ends with its interrupt) or, when a grant lets it through, runs it at once;
 *  - a call of the agent's own tools takes the resume entry for its interrupt, if one came.
 */
async function settle(
  run: AgentRun,
  calls: ConsoleCalls,
  state: RunState<unknown, SdkAgent>,
  interruptions: readonly RunToolApprovalItem[],
  entries: readonly ResumeEntry[],
  unused: Set<ResumeEntry>,
): Promise<boolean> {
  let open = false;
  for (const item of interruptions) {
    const callId = (item.rawItem as { callId?: string }).callId;
    const name = item.name ?? item.toolName ?? "tool";
    const tool = calls.tools.get(name);
    if (!callId) {
      state.reject(item, { message: "This call cannot be approved from the console." });
      continue;
    }
    if (tool) {
      const result = answerInThread(run, callId) ?? (await askExecutor(run, calls, tool, callId, item));
      if (!result) {
        open = true;
        continue;
      }
      calls.settled.set(callId, result);
      if (!result.ok && REFUSALS.has(result.error.kind)) state.reject(item, { message: JSON.stringify(result) });
      else state.approve(item);
      continue;
    }
    const entry = entries.find((e) => e.interruptId === callId);
    if (!entry) {
      run.addInterrupt(ownInterrupt(item, callId, name));
      open = true;
      continue;
    }
    unused.delete(entry);
    if (entry.status === "resolved" && approvedIn(entry.payload)) state.approve(item);
    else state.reject(item);
  }
  return open;
}

/** The thread's answer to a call (a tool message), as a tool result. */
function answerInThread(run: AgentRun, callId: string): ToolResult | undefined {
  const message = run.messages().find((m) => m.role === "tool" && m.toolCallId === callId);
  if (!message || message.role !== "tool") return undefined;
  try {
    const value: unknown = JSON.parse(textOf(message));
    if (value && typeof value === "object" && "ok" in value) return value as ToolResult;
  } catch {
    // Not the console's own form: the text is the result.
  }
  return { ok: true, value: textOf(message) };
}

/** Ask the executor about a paused registry call: its result, or nothing while a person decides (the interrupt is added). */
async function askExecutor(
  run: AgentRun,
  calls: ConsoleCalls,
  tool: RegisteredTool,
  callId: string,
  item: RunToolApprovalItem,
): Promise<ToolResult | undefined> {
  const args = parseArguments(item.arguments);
  const sent = calls.argsFor(tool, args);
  const outcome = await run.ctx.executor.call(tool.name, sent, { callId, ctx: run.runContext });
  if (!isPending(outcome)) return outcome;
  const { approvalId, expiresAt, message } = outcome.pending;
  run.addInterrupt(
    interruptFor(
      {
        id: approvalId,
        callId,
        tool: tool.name,
        args: sent as Record<string, unknown>,
        message,
        expiresAt,
        principal: run.ctx.principal.id,
        status: "pending",
        decidedBy: null,
      },
      tool,
    ),
  );
  return undefined;
}

/** The AG-UI interrupt of a call to one of the agent's own tools that needs approval; its id is the call id. */
function ownInterrupt(item: RunToolApprovalItem, callId: string, name: string): Interrupt {
  return {
    id: callId,
    reason: "tool_approval",
    toolCallId: callId,
    message: `${name} wants to run. Approve?`,
    responseSchema: OWN_APPROVAL_SCHEMA,
    metadata: { toolName: name, arguments: parseArguments(item.arguments), agent: item.agent.name },
  };
}

function approvedIn(payload: unknown): boolean {
  if (payload === true) return true;
  return typeof payload === "object" && payload !== null && (payload as { approved?: unknown }).approved === true;
}

/**
 * The thread's paused SDK run, taken for this run: only when it paused on calls this thread's
 * messages hold (an older pause the thread moved past is left alone), and only once (a replayed
 * resume, or a second tab, finds it taken and goes on from the messages, where the bridge has put
 * every answer: no call runs twice).
 */
async function takePausedState(
  run: AgentRun,
  name: string,
  agent: SdkAgent,
  states: AgentStates,
): Promise<RunState<unknown, SdkAgent> | undefined> {
  const row = await states.get(name, run.threadId, RUN_STATE_KEY);
  if (!row || row.status !== "paused" || typeof row.value !== "string") return undefined;
  let state: RunState<unknown, SdkAgent>;
  try {
    state = await RunState.fromString(agent, row.value);
  } catch (error) {
    run.ctx.logger.warn("a paused SDK run state could not be read; the run goes on from the messages", { threadId: run.threadId, error });
    return undefined;
  }
  const inThread = new Set(run.messages().flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : [])));
  const paused = state.getInterruptions().map((item) => (item.rawItem as { callId?: string }).callId);
  if (!paused.length || !paused.every((id) => id && inThread.has(id))) return undefined;
  return (await states.take(name, run.threadId, RUN_STATE_KEY, run.runId)) ? state : undefined;
}

async function pause(run: AgentRun, name: string, state: RunState<unknown, SdkAgent>, states: AgentStates): Promise<never> {
  await states.put(name, run.threadId, RUN_STATE_KEY, run.runId, state.toString(), "paused");
  throw new RunPaused();
}
