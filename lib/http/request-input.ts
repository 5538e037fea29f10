import type { z } from "zod";
import type { ErrorBody } from "./respond";
import { readCappedText } from "./read-capped";
import { errorResponse } from "./respond";

/** The second argument Next passes to a route handler: the dynamic segments of its path. */
export interface RouteContext {
  params?: Promise<Record<string, string | string[]>>;
}

export type Issue = NonNullable<ErrorBody["error"]["issues"]>[number];

/** A parsed input, or the 4xx answer to send instead. */
export type Parsed<T> = { ok: true; data: T } | { ok: false; response: Response };

/** The value of a dynamic path segment ("" when absent). */
export async function routeParam(context: RouteContext | undefined, name: string): Promise<string> {
  const params = context?.params ? await context.params : {};
  const value = params[name];
  return typeof value === "string" ? value : "";
}

/** Zod issues as the `issues` of an error body, located by JSON Pointer. */
export function toIssues(error: z.ZodError): Issue[] {
  return error.issues.map((issue) => ({ path: issue.path.length ? `/${issue.path.map(String).join("/")}` : "", message: issue.message }));
}

/**
 * Read a JSON body of at most `maxBytes` and parse it with `schema`: 413 when too large, 415 when
 * not JSON, 400 when it does not parse, 422 with the issues when it does not match.
 */
export async function readJsonBody<S extends z.ZodType>(request: Request, schema: S, maxBytes = 1024 * 1024): Promise<Parsed<z.output<S>>> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) return fail(415, "unsupported_media_type", "Send the body as JSON (content-type: application/json)");
  const read = await readCappedText(request.body, maxBytes, request.headers.get("content-length"));
  if (!read.ok)
    return read.reason === "too_large" ? fail(413, "body_too_large", `The body is larger than ${maxBytes} bytes`) : fail(400, "invalid_json", "The body is not valid UTF-8");
  let value: unknown;
  try {
    value = read.text.trim() ? JSON.parse(read.text) : undefined;
  } catch {
    return fail(400, "invalid_json", "The body is not valid JSON");
  }
  return parseWith(schema, value, "invalid_body", "The body does not match what this endpoint takes");
}

/** Parse the URL's query parameters (first value of each) with `schema`; 400 with the issues when it does not match. */
export function readQuery<S extends z.ZodType>(request: Request, schema: S): Parsed<z.output<S>> {
  const params = new URL(request.url).searchParams;
  const value: Record<string, string> = {};
  for (const [key, v] of params) if (!(key in value)) value[key] = v;
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, response: errorResponse(400, "invalid_query", "The query parameters are not valid", toIssues(parsed.error)) };
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, code: string, message: string): Parsed<z.output<S>> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, response: errorResponse(422, code, message, toIssues(parsed.error)) };
}

function fail(status: number, code: string, message: string): { ok: false; response: Response } {
  return { ok: false, response: errorResponse(status, code, message) };
}
