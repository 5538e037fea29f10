import { createHash } from "node:crypto";
import type { RunContext } from "../../execution/context";
import { ToolNotFound } from "../../execution/errors";
import type { Executor } from "../../execution/executor";
import { failure, type CallOutcome } from "../../execution/result";
import { canonicalJson, isJsonObject } from "../../json/canonical";
import { ToolUsageError } from "../../tools/errors";
import { assertAnswered } from "../pending-call";

/** A model's function call (`FunctionCall` in `@google/genai`), bare or inside a content part. */
export type GeminiFunctionCall =
  | { id?: string; name?: string; args?: Record<string, unknown> }
  | { functionCall: { id?: string; name?: string; args?: Record<string, unknown> } };

/** A function-response content part (`Part` with `functionResponse` in `@google/genai`). */
export interface GeminiFunctionResponsePart {
  functionResponse: { id: string; name: string; response: Record<string, unknown> };
}

/**
 * Run a batch of Gemini function calls through the executor; one function-response part per call,
 * in call order. A call without an id gets a stable one (its name, arguments and which occurrence
 * of that same call it is), so a repeated turn maps to the same call record. Successes answer
 * `{output}`, model-visible failures `{error:{kind,message}}`; a tool not exported to gemini answers
 * as not found. Throws ToolUsageError for an item that is not a function call, and ApprovalPending
 * when a call waits for a person (repeat the batch with the same ctx after the decision: finished
 * calls are answered from the record).
 */
export async function runFunctionCalls(
  calls: GeminiFunctionCall[],
  executor: Executor,
  ctx: Partial<RunContext> = {},
): Promise<GeminiFunctionResponsePart[]> {
  const seen = new Map<string, number>();
  const normalised = calls.map((item, index) => {
    const inner = isJsonObject(item) ? (item as { functionCall?: unknown }).functionCall : undefined;
    const call: unknown = isJsonObject(inner) ? inner : item;
    if (!isJsonObject(call) || typeof call.name !== "string" || !call.name)
      throw new ToolUsageError(`Item ${index} is not a Gemini function call (it needs a name)`);
    const args = isJsonObject(call.args) ? call.args : {};
    const key = canonicalJson([call.name, args]);
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    const id = typeof call.id === "string" && call.id ? call.id : stableCallId(call.name, args, occurrence);
    return { name: call.name, args, id };
  });
  const runnable = normalised.flatMap((call, index) =>
    executor.registry.get(call.name)?.policy.targets.includes("gemini") ? [index] : [],
  );
  const ran = await executor.callMany(
    runnable.map((index) => ({ name: normalised[index]!.name, args: normalised[index]!.args, callId: normalised[index]!.id })),
    { ctx: { surface: "gemini", ...ctx } },
  );
  const byIndex = new Map<number, CallOutcome>(runnable.map((index, i) => [index, ran[i]!]));
  return normalised.map((call, index) => {
    const result = byIndex.get(index) ?? failure(new ToolNotFound(call.name));
    assertAnswered(result, call.name);
    const response = result.ok ? { output: result.value } : { error: { kind: result.error.kind, message: result.error.message } };
    return { functionResponse: { id: call.id, name: call.name, response } };
  });
}

/** The id a call without one gets: the same name, arguments and occurrence give the same id. */
export function stableCallId(name: string, args: Record<string, unknown>, occurrence: number): string {
  return `gcall_${createHash("sha256")
    .update(canonicalJson([name, args, occurrence]))
    .digest("hex")
    .slice(0, 24)}`;
}
