import type { ToolResult } from "../execution";
import type { AgentRun, StreamingItem, ToolCallRequest } from "./agent-run";
import type { ChatModel, ToolDescriptor } from "./model";

export interface ToolLoopOptions {
  model: ChatModel;
  tools: readonly ToolDescriptor[];
  /** The agent's instructions (a system prompt). */
  system?: string;
  /** Model turns before the loop gives up (a model that keeps calling tools). */
  maxTurns?: number;
  /** Called with each turn's calls and their results (for shared state, say). */
  afterCalls?: (calls: ToolCallRequest[], results: ToolResult[]) => void;
}

/**
 * The agent loop every model-backed agent runs: ask the model, stream its reasoning and text, run
 * the tools it calls (pausing the run for approvals and client tools), and ask again with the
 * results, until it answers without calling a tool or `maxTurns` model calls have asked for tools.
 */
export async function runToolLoop(run: AgentRun, options: ToolLoopOptions): Promise<void> {
  const maxTurns = options.maxTurns ?? 8;
  const offered = {
    server: new Set(options.tools.filter((tool) => !tool.client).map((tool) => tool.name)),
    client: new Set(options.tools.filter((tool) => tool.client).map((tool) => tool.name)),
  };
  for (let turn = 0; turn < maxTurns; turn++) {
    const calls: ToolCallRequest[] = [];
    let open: { kind: "text" | "reasoning"; item: StreamingItem } | undefined;
    try {
      const request = { system: options.system, messages: run.messages(), tools: options.tools, signal: run.ctx.signal };
      for await (const chunk of options.model.respond(request)) {
        if (chunk.type === "usage") {
          run.addUsage(chunk.usage);
          continue;
        }
        if (chunk.type === "tool_call") {
          open?.item.close();
          open = undefined;
          calls.push({ name: chunk.name, args: chunk.args });
          continue;
        }
        if (open?.kind !== chunk.type) {
          open?.item.close();
          open = { kind: chunk.type, item: chunk.type === "text" ? run.openText() : run.openReasoning() };
        }
        const waiting = open.item.append(chunk.delta);
        if (waiting) await waiting;
      }
    } finally {
      open?.item.close();
    }
    if (!calls.length) return;
    const results = await run.callAll(calls, { offered });
    options.afterCalls?.(calls, results);
  }
  await run.text(`I stopped after ${maxTurns} rounds of tool calls without reaching an answer.`);
}
