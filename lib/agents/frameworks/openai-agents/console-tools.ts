import { tool, type FunctionTool } from "@openai/agents";
import { requiresApproval } from "../../../approvals/gate";
import { isPending, type ToolResult } from "../../../execution";
import { toOpenAIResponsesTool } from "../../../integrations/openai/openai-tools";
import { dropStrictNulls } from "../../../integrations/openai/strict-arguments";
import type { Logger } from "../../../log";
import { ToolUsageError } from "../../../tools/errors";
import type { RegisteredTool } from "../../../tools/spec";
import type { AgentRun } from "../../agent-run";
import { mediaNamedText } from "../../media-text";

/**
 * What one AG-UI run knows about the registry calls its SDK agent makes: results already settled
 * (answered in the thread by the bridge, or run when the pause was checked), and the result of
 * every call the run's tools returned, so the stream can show it as the console's own tool result.
 */
export class ConsoleCalls {
  /** Call id → the result the SDK gets when it runs that call, without asking the executor. */
  readonly settled = new Map<string, ToolResult>();
  /** Call id → what the tool returned to the SDK in this run. */
  readonly results = new Map<string, ToolResult>();
  /** Registry tools offered in this run, by name. */
  readonly tools = new Map<string, RegisteredTool>();
  /** Tools whose arguments went out in strict mode: their strict nulls are dropped before the executor. */
  readonly strict = new Set<string>();

  constructor(
    readonly run: AgentRun,
    private readonly logger: Logger,
  ) {}

  /**
   * Run one registry call through the console's executor, in the run's scope and under the SDK's
   * call id: a call the thread has answered, or the record holds, is never run twice.
   */
  async call(tool: RegisteredTool, input: unknown, callId: string | undefined): Promise<ToolResult> {
    const known = callId ? this.settled.get(callId) : undefined;
    if (known) return this.keep(callId, known);
    const outcome = await this.run.ctx.executor.call(tool.name, this.argsFor(tool, input), {
      ...(callId && { callId }),
      ctx: this.run.runContext,
    });
    if (!isPending(outcome)) return this.keep(callId, outcome);
    // The SDK asked the policy a moment ago and heard that no approval was needed; the operator
    // changed it since. The model is told the call did not run; the approval stays in the inbox.
    this.logger.warn("an SDK tool call waits for approval although its policy did not ask for one", { tool: tool.name, callId });
    return this.keep(callId, notRun(`The call to ${tool.name} waits for approval (${outcome.pending.approvalId}); it did not run`));
  }

  /** The arguments the executor gets: a strict-mode call's nulls for "left out" removed. */
  argsFor(tool: RegisteredTool, input: unknown): unknown {
    return this.strict.has(tool.name) ? dropStrictNulls(tool.inputSchema, input) : input;
  }

  private keep(callId: string | undefined, result: ToolResult): ToolResult {
    if (callId) this.results.set(callId, result);
    return result;
  }
}

/** Arguments of a call as the SDK holds them (JSON text), as an object; anything else is `{}`. */
export function parseArguments(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The registry's tools exported to OpenAI, as SDK function tools of one run: the definition comes
 * from the console's own exporter (strict schema where it can be), a call runs through the
 * executor (see ConsoleCalls.call), and `needsApproval` follows the console's approval policy, so
 * the SDK pauses exactly where the console would ask a person.
 */
export function consoleTools(calls: ConsoleCalls, tools: readonly RegisteredTool[]): FunctionTool[] {
  const out: FunctionTool[] = [];
  for (const registered of tools) {
    let exported;
    try {
      exported = toOpenAIResponsesTool(registered).output;
    } catch (error) {
      if (error instanceof ToolUsageError) continue;
      throw error;
    }
    calls.tools.set(registered.name, registered);
    if (exported.strict) calls.strict.add(registered.name);
    const name = registered.name;
    const definition = tool({
      name,
      description: exported.description,
      parameters: exported.parameters as never,
      strict: exported.strict as false,
      // The policy is read when the SDK asks, so a change in the console applies to the next call.
      needsApproval: async (_context: unknown, _input: unknown, callId?: string) => {
        const current = calls.run.ctx.executor.registry.get(name);
        return !(callId && calls.settled.has(callId)) && current !== undefined && requiresApproval(current);
      },
      execute: async (input: unknown, _context?: unknown, details?: { toolCall?: { callId?: string } }) => {
        const current = calls.run.ctx.executor.registry.get(name) ?? registered;
        // What the model reads: media named, not spelled out. The stream answers the call from `calls.results`, media and all.
        return mediaNamedText(JSON.stringify(await calls.call(current, input, details?.toolCall?.callId)));
      },
      // A failure is data already; anything the executor throws is a programming error the run reports.
      errorFunction: null,
    });
    out.push(definition as FunctionTool);
  }
  return out;
}

/** The result of a call that did not run, saying why (a model reads it as a cancelled call). */
export function notRun(why: string): ToolResult {
  return { ok: false, error: { kind: "cancelled", message: why } };
}
