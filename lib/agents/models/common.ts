import type { Message } from "@ag-ui/core";
import { jsonTextDepthExceeds } from "../../json/depth";
import { isJsonObject } from "../../json/canonical";
import { AddressNotAllowed } from "../../net";
import type { ExportResult } from "../../integrations/export-result";
import { ToolUsageError } from "../../tools/errors";
import type { ToolSpec } from "../../tools/spec";
import { ModelError, type ModelChunk, type ToolDescriptor } from "../model";

/** Deepest tool arguments a model may send (the same bound as request bodies). */
const MAX_ARGUMENT_DEPTH = 64;
/** Longest provider message quoted in a RUN_ERROR. */
const MAX_PROVIDER_MESSAGE = 300;

/**
 * Adds a text or reasoning delta to the chunks of one read of a streamed answer, joined to the
 * last of them when that is a delta of the same kind (see `openAIEventBatches`): deltas that
 * arrived together reach the agent together. Order across kinds and tool calls is kept.
 */
export function joinDelta(chunks: ModelChunk[], type: "text" | "reasoning", delta: string): void {
  const last = chunks.at(-1);
  if (last?.type === type) last.delta += delta;
  else chunks.push({ type, delta });
}

/** The text of a message's content: a string, or the text parts of a multimodal content list. */
export function textOf(message: Message): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part): part is { type: "text"; text: string } => isJsonObject(part) && part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

/**
 * The arguments of a tool call as the model streamed them (JSON text). Empty text is no arguments;
 * anything that is not a JSON object, or is nested deeper than request bodies may be, fails the
 * model call with a ModelError that says so.
 */
export function parseToolArguments(provider: string, toolName: string, text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  if (jsonTextDepthExceeds(text, MAX_ARGUMENT_DEPTH))
    throw new ModelError(`${provider} sent arguments for ${toolName} nested deeper than ${MAX_ARGUMENT_DEPTH} levels`, "model_error");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ModelError(`${provider} sent arguments for ${toolName} that are not JSON`, "model_error");
  }
  if (!isJsonObject(value)) throw new ModelError(`${provider} sent arguments for ${toolName} that are not a JSON object`, "model_error");
  return value;
}

/**
 * The tools in a provider's format: registry tools through the console's exporter for that format
 * (a tool the format's targets exclude is left out), client tools from their JSON Schema.
 */
export function toolDefinitions<T>(
  tools: readonly ToolDescriptor[],
  exporter: (spec: ToolSpec) => ExportResult<T>,
  fromParameters: (tool: ToolDescriptor) => T,
): T[] {
  let exported = EXPORTS.get(exporter) as WeakMap<ToolSpec, T | undefined> | undefined;
  if (!exported) EXPORTS.set(exporter, (exported = new WeakMap()));
  const out: T[] = [];
  for (const tool of tools) {
    if (!tool.spec) {
      out.push(fromParameters(tool));
      continue;
    }
    if (!exported.has(tool.spec)) exported.set(tool.spec, exportOrSkip(exporter, tool.spec));
    const definition = exported.get(tool.spec);
    if (definition !== undefined) out.push(definition);
  }
  return out;
}

/**
 * Exports already made, by exporter and definition: the registry hands out the same object for a
 * tool until it changes, so every model turn after the first reuses its export (strict schemas
 * are not cheap to make). A changed tool is a new object, exported again.
 */
const EXPORTS = new WeakMap<object, WeakMap<ToolSpec, unknown>>();

function exportOrSkip<T>(exporter: (spec: ToolSpec) => ExportResult<T>, spec: ToolSpec): T | undefined {
  try {
    return exporter(spec).output;
  } catch (error) {
    if (error instanceof ToolUsageError) return undefined;
    throw error;
  }
}

/**
 * A provider SDK's failure as a ModelError whose message a user can act on: who answered what
 * (status and the provider's own message, cut short), which variable holds the key on a 401, or
 * why the provider could not be reached. Never the key or the request body.
 */
export function providerError(provider: string, keyVariable: string, error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  const status = statusOf(error);
  const detail = cut(messageOf(error));
  if (status === 401 || status === 403)
    return new ModelError(
      `${provider} refused the key (${status}${detail ? `: ${detail}` : ""}). Check ${keyVariable}.`,
      "model_error",
      status,
      { cause: error },
    );
  if (status !== undefined)
    return new ModelError(`${provider} answered ${status}${detail ? `: ${detail}` : ""}`, "model_error", status, { cause: error });
  const refused = findCause(error, (e) => e instanceof AddressNotAllowed);
  if (refused)
    return new ModelError(`${provider} is not reachable from the console: ${cut((refused as Error).message)}`, "model_error", undefined, {
      cause: error,
    });
  return new ModelError(`${provider} could not be reached${detail ? `: ${detail}` : ""}`, "model_error", undefined, { cause: error });
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | undefined)?.status;
  return typeof status === "number" && status >= 400 && status < 600 ? status : undefined;
}

function messageOf(error: unknown): string {
  const cause = (error as { cause?: { message?: unknown } } | undefined)?.cause;
  const own = error instanceof Error ? error.message : String(error);
  return typeof cause?.message === "string" && cause.message && !own.includes(cause.message) ? `${own} (${cause.message})` : own;
}

function findCause(error: unknown, test: (e: unknown) => boolean): unknown {
  for (let at = error, depth = 0; at && depth < 5; at = (at as { cause?: unknown }).cause, depth++) if (test(at)) return at;
  return undefined;
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_PROVIDER_MESSAGE ? `${line.slice(0, MAX_PROVIDER_MESSAGE)}…` : line;
}
