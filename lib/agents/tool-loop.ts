import type { ToolResult } from "../execution";
import type { AgentRun, StreamingItem, ToolCallRequest } from "./agent-run";
import { ModelError, type ChatModel, type ModelChunk, type ToolDescriptor } from "./model";

/** A model answer that sends nothing for this long is stopped (the run ends with RUN_ERROR). */
export const MODEL_IDLE_TIMEOUT_MS = 120_000;
/** Characters of text and reasoning one model answer may stream before it is stopped. */
export const MAX_ANSWER_CHARS = 1_000_000;

export interface ToolLoopOptions {
  model: ChatModel;
  tools: readonly ToolDescriptor[];
  /** The agent's instructions (a system prompt). */
  system?: string;
  /** Model turns before the loop gives up (a model that keeps calling tools). */
  maxTurns?: number;
  /** Called with each turn's calls and their results (for shared state, say). */
  afterCalls?: (calls: ToolCallRequest[], results: ToolResult[]) => void;
  /** How long a model answer may send nothing (MODEL_IDLE_TIMEOUT_MS unless set). */
  idleTimeoutMs?: number;
  /** How much text one model answer may stream (MAX_ANSWER_CHARS unless set). */
  maxAnswerChars?: number;
}

/**
 * The agent loop every model-backed agent runs: ask the model, stream its reasoning and text, run
 * the tools it calls (pausing the run for approvals and client tools), and ask again with the
 * results, until it answers without calling a tool or `maxTurns` model calls have asked for tools.
 */
export async function runToolLoop(run: AgentRun, options: ToolLoopOptions): Promise<void> {
  const maxTurns = options.maxTurns ?? 8;
  const offered = offeredNames(options.tools);
  const idleMs = options.idleTimeoutMs ?? MODEL_IDLE_TIMEOUT_MS;
  const maxChars = options.maxAnswerChars ?? MAX_ANSWER_CHARS;
  for (let turn = 0; turn < maxTurns; turn++) {
    const calls: ToolCallRequest[] = [];
    let open: { kind: "text" | "reasoning"; item: StreamingItem } | undefined;
    // The model's request stops with the run, or when the model goes quiet: a provider that stalls
    // after its headers would otherwise hold the run for ever (the SDKs' timeouts end at the headers).
    const answer = new AbortController();
    const stop = () => answer.abort(run.ctx.signal.reason);
    run.ctx.signal.addEventListener("abort", stop, { once: true });
    const quiet = () =>
      answer.abort(
        new ModelError(`${options.model.label} sent nothing for ${Math.round(idleMs / 1000)} s; the answer was stopped`, "model_error"),
      );
    // A chunk only says it came; a timer looks every quarter of idleMs whether one came since it
    // last looked, and stops the answer after idleMs without one: never early, at most a quarter
    // late. No clock is read per chunk: under Next.js every Date.now() also asks two
    // AsyncLocalStorages whether a prerender reads the time (node-environment-extensions/date.js),
    // which at a read per chunk cost a 20,000-chunk answer 2.2 ms of the serving thread, and
    // performance.now() 0.7 ms (CPU profiles of the production build serving `/stream 20000`).
    const step = idleMs / 4;
    let heard = false;
    let quietFor = 0;
    const look = () => {
      quietFor = heard ? 0 : quietFor + step;
      heard = false;
      if (quietFor >= idleMs) quiet();
      else idle = setTimeout(look, step);
    };
    let idle = setTimeout(look, step);
    let chars = 0;
    try {
      if (run.ctx.signal.aborted) stop();
      const request = { system: options.system, messages: run.messages(), tools: options.tools, signal: answer.signal };
      const take = (chunk: ModelChunk): Promise<void> | void => {
        heard = true;
        if (chunk.type === "text" || chunk.type === "reasoning") {
          chars += chunk.delta.length;
          if (chars > maxChars)
            throw new ModelError(
              `${options.model.label} sent more than ${maxChars.toLocaleString("en")} characters in one answer; it was stopped`,
              "model_error",
            );
        }
        if (chunk.type === "usage") return run.addUsage(chunk.usage);
        if (chunk.type === "tool_call") {
          open?.item.close();
          open = undefined;
          calls.push({ name: chunk.name, args: chunk.args });
          return;
        }
        if (open?.kind !== chunk.type) {
          open?.item.close();
          open = { kind: chunk.type, item: chunk.type === "text" ? run.openText() : run.openReasoning() };
        }
        return open.item.append(chunk.delta);
      };
      const chunks = options.model.respond(request);
      // A promise only when the run waits (a reader behind, a turn of the event loop now and then).
      if (Symbol.iterator in chunks) {
        for (const chunk of chunks) {
          const waiting = take(chunk);
          if (waiting) await waiting;
        }
      } else {
        for await (const chunk of chunks) {
          const waiting = take(chunk);
          if (waiting) await waiting;
        }
      }
    } catch (error) {
      // A model stopped for going quiet surfaces as the abort's reason, or as whatever the SDK made of the abort.
      const reason: unknown = answer.signal.reason;
      if (answer.signal.aborted && reason instanceof ModelError && !run.ctx.signal.aborted) throw reason;
      throw error;
    } finally {
      clearTimeout(idle);
      run.ctx.signal.removeEventListener("abort", stop);
      open?.item.close();
    }
    if (!calls.length) return;
    const results = await run.callAll(calls, { offered });
    options.afterCalls?.(calls, results);
  }
  await run.text(`I stopped after ${maxTurns} rounds of tool calls without reaching an answer.`);
}

/** The names of `tools` the model may call, server and client apart; kept per array (an agent may offer the same one to every run). */
const OFFERED = new WeakMap<readonly ToolDescriptor[], { server: ReadonlySet<string>; client: ReadonlySet<string> }>();

export function offeredNames(tools: readonly ToolDescriptor[]): { server: ReadonlySet<string>; client: ReadonlySet<string> } {
  let offered = OFFERED.get(tools);
  if (!offered) {
    offered = {
      server: new Set(tools.filter((tool) => !tool.client).map((tool) => tool.name)),
      client: new Set(tools.filter((tool) => tool.client).map((tool) => tool.name)),
    };
    OFFERED.set(tools, offered);
  }
  return offered;
}
