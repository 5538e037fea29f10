import type { z } from "zod";
import { DomainError, type ErrorKind, type Issue } from "../errors";
import { JsonDepthCounter, MAX_INPUT_DEPTH } from "../json/depth";
import { parseUntrusted } from "../json/untrusted";
import { freshTurn, turnAvailable } from "../streams/turn-budget";
import { readCappedText } from "./read-capped";

export { MAX_INPUT_DEPTH };

/** The second argument Next passes to a route handler: the dynamic segments of its path. */
export interface RouteContext {
  params?: Promise<Record<string, string | string[]>>;
  /**
   * The socket's remote address, when the server knows it (the node adapter, the bench); Next's
   * route handlers do not pass one, and authentication then decides from the Host alone.
   */
  peer?: string;
}

/** A body this long is parsed in a turn of the event loop of its own (about 2 ms of JSON.parse). */
const LARGE_BODY_CHARS = 256 * 1024;

/** Bodies larger than this are refused unless a handler sets its own limit. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The value of a dynamic path segment ("" when absent). */
export async function routeParam(context: RouteContext | undefined, name: string): Promise<string> {
  const params = context?.params ? await context.params : {};
  const value = params[name];
  return typeof value === "string" ? value : "";
}

/** Zod issues as the `issues` of an error body, located by JSON Pointer. */
export function toIssues(issues: readonly z.core.$ZodIssue[]): Issue[] {
  return issues.map((issue) => ({ path: issue.path.length ? `/${issue.path.map(String).join("/")}` : "", message: issue.message }));
}

/**
 * The request's JSON body, reading at most `maxBytes` and nesting at most MAX_INPUT_DEPTH levels
 * (checked on the text, before it is parsed). An empty body is `undefined`.
 * Throws DomainError: unsupported_media_type (not `application/json`), payload_too_large,
 * invalid_json (not UTF-8 or not JSON), too_deep.
 */
export async function readJson(request: Request, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<unknown> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json")
    throw new DomainError("unsupported_media_type", "Send the body as JSON (content-type: application/json)");
  // The nesting is counted as the body arrives: parsing is iterative, but what runs on the value
  // afterwards (schemas, digests, stringify) recurses.
  const depth = new JsonDepthCounter(MAX_INPUT_DEPTH);
  const read = await readCappedText(request.body, maxBytes, {
    declaredLength: request.headers.get("content-length"),
    onText: (piece) => depth.feed(piece),
  });
  if (!read.ok) {
    if (read.reason === "too_large") throw new DomainError("payload_too_large", `The body is larger than ${maxBytes} bytes`);
    throw new DomainError("invalid_json", "The body is not valid UTF-8");
  }
  if (!read.text.trim()) return undefined;
  if (depth.exceeded) throw new DomainError("too_deep", `The body nests arrays and objects deeper than ${MAX_INPUT_DEPTH} levels`);
  // Requests often arrive together (20 runs at once): what each does from here (its parse, its
  // rows, an agent's first events) waits for a turn of the event loop with room, so their sum never
  // holds one turn. Parsing a large body is one block of work: it starts a turn of its own.
  await (read.text.length >= LARGE_BODY_CHARS ? freshTurn() : turnAvailable());
  try {
    return JSON.parse(read.text);
  } catch {
    throw new DomainError("invalid_json", "The body is not valid JSON");
  }
}

/** The request's JSON body parsed with `schema`. Throws what readJson throws, and invalid_body with the issues. */
export async function readJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<z.output<S>> {
  return parseWith(schema, await readJson(request, maxBytes), "invalid_body", "The body does not match what this endpoint takes");
}

/** The URL's query parameters (first value of each) parsed with `schema`. Throws invalid_query with the issues. */
export function readQuery<S extends z.ZodType>(request: Request, schema: S): z.output<S> {
  const value: Record<string, string> = {};
  for (const [key, v] of new URL(request.url).searchParams) if (!(key in value)) value[key] = v;
  return parseWith(schema, value, "invalid_query", "The query parameters are not valid");
}

/** `value` parsed with `schema`. Throws DomainError of `kind` with the issues. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, kind: ErrorKind, message: string): z.output<S> {
  const parsed = parseUntrusted(schema, value);
  if (parsed.success) return parsed.data;
  throw new DomainError(kind, message, { issues: toIssues(parsed.issues) });
}
