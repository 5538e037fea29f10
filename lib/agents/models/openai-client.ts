import { setTimeout as sleep } from "node:timers/promises";
import OpenAI, { APIError } from "openai";
import { dropStrictNulls } from "../../integrations/openai/strict-arguments";
import type { JsonSchema } from "../../tools/spec";
import { ModelError, type ToolDescriptor } from "../model";
import { parseToolArguments, providerError } from "./common";
import type { DriverOptions } from "./driver";

/** How the OpenAI drivers name the provider in messages, and the variable that holds its key. */
export const OPENAI = "OpenAI";
const KEY_VARIABLE = "OPENAI_API_KEY";

/** Retries of a request refused before its answer started (429, 5xx...), by default. */
const DEFAULT_MAX_RETRIES = 2;
/** Longest wait before a retry: a provider that asks for more gets its error reported at once. */
const MAX_RETRY_WAIT_MS = 10_000;
/** Longest a request may take to answer (the SDK's own default, stated here). */
const REQUEST_TIMEOUT_MS = 10 * 60_000;
/** Most JSON text one tool call's streamed arguments may add up to. */
const MAX_ARGUMENT_CHARS = 1_000_000;
/** Most tool calls one answer may make. */
const MAX_TOOL_CALLS = 128;

export interface OpenAIModelOptions extends DriverOptions {
  /** Retries of a request refused before its answer started (default 2; 0 turns them off). */
  maxRetries?: number;
}

/**
 * The `openai` SDK client a driver talks through. Everything it would read from the environment
 * (OPENAI_BASE_URL, OPENAI_ORG_ID, OPENAI_PROJECT_ID) is set here instead, so that only the
 * console's configuration decides where requests go. The SDK does not retry: it would wait as long
 * as a `retry-after` header asks, so `openWithRetries` does it with a bound.
 */
export function createOpenAIClient(options: DriverOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseUrl ?? "https://api.openai.com/v1",
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: REQUEST_TIMEOUT_MS,
    ...(options.fetch && { fetch: options.fetch }),
  });
}

/**
 * Start a request, retrying it up to `retries` times when OpenAI refuses it with a status worth
 * retrying (408, 409, 429, 5xx), after the wait it asks for (or a short backoff) when that wait is
 * at most 10 s. Throws the last failure; throws the abort reason when `signal` aborts a wait.
 */
export async function openWithRetries<T>(start: () => Promise<T>, signal: AbortSignal, retries = DEFAULT_MAX_RETRIES): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const wait = attempt < retries && !signal.aborted ? retryWait(error, attempt) : undefined;
      if (wait === undefined) throw error;
      await sleep(wait, undefined, { signal });
    }
  }
}

function retryWait(error: unknown, attempt: number): number | undefined {
  if (!(error instanceof APIError) || error.status === undefined) return undefined;
  const status = error.status;
  if (!(status === 408 || status === 409 || status === 429 || status >= 500)) return undefined;
  const asked = askedWait(error.headers);
  if (asked !== undefined) return asked <= MAX_RETRY_WAIT_MS ? Math.max(0, asked) : undefined;
  // The SDK's own backoff: half a second, doubling, with up to a quarter off as jitter.
  return 500 * 2 ** attempt * (1 - Math.random() * 0.25);
}

function askedWait(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms)) return ms;
  const after = headers?.get("retry-after");
  if (!after) return undefined;
  const seconds = Number.parseFloat(after);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isFinite(date) ? date - Date.now() : undefined;
}

/** The HTTP status OpenAI answers for an error `type` or `code`, for an error reported mid-answer. */
function statusFor(type: string | null | undefined, code: string | null | undefined): number {
  if (code === "rate_limit_exceeded" || type === "requests" || type === "tokens" || type === "rate_limit_exceeded") return 429;
  if (code === "invalid_api_key" || type === "authentication_error") return 401;
  if (type === "invalid_request_error" || code === "invalid_prompt") return 400;
  return 500;
}

/** A failure in OpenAI's own words, with the status it answered or the one its error type stands for. */
class OpenAIFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * Any failure of an OpenAI call as a ModelError a user can act on (see providerError), quoting the
 * API's message rather than the SDK's dump of the error body.
 */
export function openAIError(error: unknown): ModelError {
  if (error instanceof APIError) {
    const message = (error.error as { message?: unknown } | undefined)?.message;
    if (typeof message === "string" && message)
      return providerError(OPENAI, KEY_VARIABLE, new OpenAIFailure(message, error.status ?? statusFor(error.type, error.code)));
  }
  return providerError(OPENAI, KEY_VARIABLE, error);
}

/** An error OpenAI reported inside a streamed answer (a Responses `error` or `response.failed` event). */
export function streamedError(message: string, code: string | null | undefined): ModelError {
  return providerError(OPENAI, KEY_VARIABLE, new OpenAIFailure(message || "the answer failed", statusFor(undefined, code)));
}

/**
 * Reads the tool calls of one answer: bounds how many there are and how long their streamed
 * arguments grow, parses the arguments, and for a registry tool offered in strict mode removes the
 * nulls strict mode made the model send for the arguments it left out.
 */
export class ToolCallReader {
  private readonly strictSchemas = new Map<string, JsonSchema>();
  private count = 0;

  /** `definitions`: the tools as sent, by name, with their `strict` flag. */
  constructor(tools: readonly ToolDescriptor[], definitions: ReadonlyArray<{ name: string; strict: boolean | null | undefined }>) {
    const specs = new Map(tools.map((tool) => [tool.name, tool.spec]));
    for (const definition of definitions) {
      const spec = specs.get(definition.name);
      if (definition.strict && spec) this.strictSchemas.set(definition.name, spec.inputSchema);
    }
  }

  /** Throws ModelError when a call's arguments (`length` characters so far) grow past the bound. */
  checkLength(name: string, length: number): void {
    if (length > MAX_ARGUMENT_CHARS)
      throw new ModelError(`${OPENAI} sent arguments for ${name} longer than ${MAX_ARGUMENT_CHARS} characters`, "model_error");
  }

  /** The arguments of a complete call, as the executor should see them. Throws ModelError for bad JSON or too many calls. */
  read(name: string, argumentText: string): Record<string, unknown> {
    if (++this.count > MAX_TOOL_CALLS)
      throw new ModelError(`${OPENAI} made more than ${MAX_TOOL_CALLS} tool calls in one answer`, "model_error");
    this.checkLength(name, argumentText.length);
    const args = parseToolArguments(OPENAI, name, argumentText);
    const schema = this.strictSchemas.get(name);
    return schema ? (dropStrictNulls(schema, args) as Record<string, unknown>) : args;
  }
}
