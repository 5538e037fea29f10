import type { Agent } from "./agent";
import { agentFunction, type AgentFunctionOptions } from "./agent-function";
import type { AgentRun } from "./agent-run";
import type { ToolDescriptor } from "./model";
import type { RegisteredTool } from "../tools/spec";
import { ScriptedModel } from "./scripted-model";
import { offeredNames, runToolLoop } from "./tool-loop";

/** One line per tool call the demo agent made, kept in the thread's shared state. */
export interface DemoAction {
  toolCallId: string;
  tool: string;
  /** "unknown": the console stopped while the call ran, before its outcome was recorded. */
  outcome: "succeeded" | "failed" | "denied" | "cancelled" | "unknown";
}

/** The console's default agent: the scripted model with every registry tool and the client's tools. */
export function demoAgent(options: AgentFunctionOptions = {}): Agent {
  const model = new ScriptedModel();
  return agentFunction(
    {
      name: "demo",
      description: "Demo agent with tools (weather, calculator, time, tickets, refunds). Scripted model: works offline, no key.",
      model: model.label,
      capabilities: { tools: true, clientTools: true, approvals: true, sharedState: true, reasoning: true },
    },
    async (run) => {
      recordActions(run);
      try {
        // The scripted model is the console's own: its `/stream N` answers may be as long as asked.
        await runToolLoop(run, { model, tools: toolsFor(run), afterCalls: () => recordActions(run), maxAnswerChars: Infinity });
      } finally {
        // Also when the run pauses: the calls that completed before the pause are in the state.
        recordActions(run);
      }
    },
    options,
  );
}

/** A second demo agent with no tools at all: plain chat, to show the difference. */
export function plainChatAgent(options: AgentFunctionOptions = {}): Agent {
  const model = new ScriptedModel();
  return agentFunction(
    {
      name: "plain-chat",
      description: "Plain chat with no tools. Scripted model: works offline, no key.",
      model: model.label,
      capabilities: { tools: false, clientTools: false, approvals: false, sharedState: false, reasoning: false },
    },
    (run) => runToolLoop(run, { model, tools: [], maxAnswerChars: Infinity }),
    options,
  );
}

/** The descriptors of a forTarget("agui") answer, made once per answer (the registry keeps it until it changes). */
const serverDescriptors = new WeakMap<readonly RegisteredTool[], readonly ToolDescriptor[]>();

/**
 * Registry tools served over AG-UI, then the client's own tools (a registry tool wins a name
 * clash). Without client tools, the same array for every run until the registry changes: work per
 * run does not grow with the registry.
 */
function toolsFor(run: AgentRun): readonly ToolDescriptor[] {
  const registryTools = run.ctx.executor.registry.forTarget("agui");
  let server = serverDescriptors.get(registryTools);
  if (!server) {
    server = registryTools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema, client: false }));
    serverDescriptors.set(registryTools, server);
  }
  const names = offeredNames(server).server;
  const client = run
    .clientTools()
    .filter((t) => !names.has(t.name))
    .map((t) => ({
      name: t.name,
      description: t.description,
      parameters: (t.parameters as Record<string, unknown>) ?? { type: "object" },
      client: true,
    }));
  return client.length ? [...server, ...client] : server;
}

/** Add each answered tool call of the conversation to the shared state's `actions` (as STATE_DELTA). */
function recordActions(run: AgentRun): void {
  const state = run.state as { actions?: DemoAction[] } | undefined;
  const known = new Set((Array.isArray(state?.actions) ? state.actions : []).map((a) => a.toolCallId));
  const names = new Map<string, string>();
  const fresh: DemoAction[] = [];
  for (const message of run.messages()) {
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) names.set(call.id, call.function.name);
    if (message.role !== "tool" || known.has(message.toolCallId)) continue;
    fresh.push({ toolCallId: message.toolCallId, tool: names.get(message.toolCallId) ?? "unknown", outcome: outcomeOf(message.content) });
  }
  if (!fresh.length) return;
  run.updateState((draft) => {
    const actions = Array.isArray(draft.actions) ? (draft.actions as DemoAction[]) : (draft.actions = []);
    actions.push(...fresh);
  });
}

function outcomeOf(content: unknown): DemoAction["outcome"] {
  try {
    const result = JSON.parse(typeof content === "string" ? content : "") as { ok?: boolean; error?: { kind?: string } };
    if (result.ok) return "succeeded";
    if (result.error?.kind === "denied") return "denied";
    if (result.error?.kind === "outcome_unknown") return "unknown";
    if (result.error?.kind === "cancelled" || result.error?.kind === "approval_expired") return "cancelled";
    return "failed";
  } catch {
    return "succeeded";
  }
}
