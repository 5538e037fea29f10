import type { Interrupt } from "@ag-ui/core";
import { ToolMessage, isAIMessage, isToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { interrupt } from "@langchain/langgraph";
import { isPending, type Executor, type RunContext, type ToolResult } from "../../../execution";
import { dropStrictNulls } from "../../../integrations/openai/strict-arguments";
import { interruptFor } from "../../interrupts";
import { toolMessageFields } from "./messages";

/** What the adapter hands every node of a graph run, under `config.context.console`. */
export interface ConsoleGraphContext {
  executor: Executor;
  /** The run's context for the executor: the thread's scope, the caller, the stop signal. */
  runContext: RunContext;
}

/**
 * The `kind` of a LangGraph interrupt raised for calls waiting for the console's approval. The
 * adapter shows the console's own interrupts for it (one per call, id = approval id), and resumes
 * it by itself once the bridge has answered them.
 */
export const CONSOLE_APPROVALS = "agui-console.approvals";

/** The value of a CONSOLE_APPROVALS interrupt. */
export interface ConsoleApprovalsValue {
  kind: typeof CONSOLE_APPROVALS;
  interrupts: Interrupt[];
}

export function isConsoleApprovals(value: unknown): value is ConsoleApprovalsValue {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { kind?: unknown }).kind === CONSOLE_APPROVALS &&
    Array.isArray((value as ConsoleApprovalsValue).interrupts)
  );
}

/** The console context of a node's run. Throws when the graph runs outside the console's adapter. */
export function consoleContext(config: LangGraphRunnableConfig): ConsoleGraphContext {
  const context = (config.context as { console?: ConsoleGraphContext } | undefined)?.console;
  if (!context) throw new Error("This node calls the console's tools: run the graph through langGraphAgent");
  return context;
}

export interface ConsoleToolsNodeOptions {
  /** Calls to these tools are left to other nodes (a graph's own tools, such as asking the person). */
  skip?: readonly string[];
  /** Calls answered at once, at most (default 4). */
  concurrency?: number;
}

/**
 * A graph node that answers the tool calls of the last assistant message with the console's
 * registry tools, run through the executor under the thread's scope: arguments are checked,
 * approvals asked, and each call id is recorded, so a node run again after a pause (LangGraph
 * re-runs a node from its start on resume) is answered from the record and never runs a tool twice.
 * When calls wait for a person, the node pauses the graph with one CONSOLE_APPROVALS interrupt;
 * the calls that did finish are recorded meanwhile. Writes one ToolMessage per call.
 */
export function consoleToolsNode(options: ConsoleToolsNodeOptions = {}) {
  const skip = new Set(options.skip ?? []);
  return async (state: { messages: BaseMessage[] }, config: LangGraphRunnableConfig): Promise<{ messages: ToolMessage[] }> => {
    const { executor, runContext } = consoleContext(config);
    const calls = unansweredCalls(state.messages).filter((call) => !skip.has(call.name));
    const outcomes = await executor.callMany(
      calls.map((call) => {
        const tool = executor.registry.get(call.name);
        return { name: call.name, args: tool ? dropStrictNulls(tool.inputSchema, call.args) : call.args, callId: call.id };
      }),
      { ctx: runContext, concurrency: options.concurrency ?? 4 },
    );
    const waiting: Interrupt[] = [];
    outcomes.forEach((outcome, index) => {
      if (!isPending(outcome)) return;
      const call = calls[index]!;
      const { approvalId, expiresAt, message } = outcome.pending;
      waiting.push(
        interruptFor(
          {
            id: approvalId,
            callId: call.id,
            tool: call.name,
            args: call.args,
            message,
            expiresAt,
            principal: runContext.principal,
            status: "pending",
            decidedBy: null,
          },
          executor.registry.get(call.name),
        ),
      );
    });
    if (waiting.length) interrupt({ kind: CONSOLE_APPROVALS, interrupts: waiting } satisfies ConsoleApprovalsValue);
    return {
      messages: outcomes.map((outcome, index) => {
        const result = outcome as ToolResult;
        return new ToolMessage({
          tool_call_id: calls[index]!.id,
          name: calls[index]!.name,
          ...toolMessageFields(JSON.stringify(result)),
          status: result.ok ? "success" : "error",
        });
      }),
    };
  };
}

/** The tool calls of the last assistant message that no tool message answers yet. */
export function unansweredCalls(messages: readonly BaseMessage[]): Array<{ id: string; name: string; args: Record<string, unknown> }> {
  const last = messages.findLastIndex((m) => isAIMessage(m));
  if (last === -1) return [];
  const answered = new Set(messages.slice(last + 1).flatMap((m) => (isToolMessage(m) ? [m.tool_call_id] : [])));
  const message = messages[last]!;
  return (isAIMessage(message) ? (message.tool_calls ?? []) : [])
    .filter((call) => call.id && !answered.has(call.id))
    .map((call) => ({ id: call.id!, name: call.name, args: call.args ?? {} }));
}
