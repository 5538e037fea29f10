import { type EndpointShape, type World } from "./endpoints";
import { contentType, fuzzBody, hostHeader, mixedString, nastyString, originHeader, type FuzzBody } from "./generators";
import type { Random } from "./random";

/** Credentials a request can carry: each is a header set, chosen per request. */
export interface Callers {
  /** Good bearer tokens, by what they may do (their scopes). */
  tokens: Record<string, string>;
  /** The cookie value of a live operator session. */
  session: string;
}

/** One request the in-process pass sends, with what Next would pass as the route's parameters. */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  params: Record<string, string>;
  body?: FuzzBody;
}

const PORT = 3000;

/**
 * A request to `path` (Next's `[param]` form) answered by the handler of `method`: a plausible
 * request from `shape`, then parameters, query, headers and body changed at random.
 */
export function fuzzRequest(r: Random, method: string, path: string, shape: EndpointShape, world: World, callers: Callers): FuzzRequest {
  const params = fuzzParams(r, path, shape, world);
  const url = `http://127.0.0.1:${PORT}${fillPath(path, params)}${fuzzQuery(r, shape, world)}`;
  const headers: Record<string, string> = {};
  const set = (name: string, value: string | undefined) => {
    if (value !== undefined) headers[name] = value;
  };
  // Most requests get past the Host, origin and credential checks so that the fuzz reaches the
  // handlers' own parsing; the rest break those checks in every way.
  if (r.chance(0.6)) {
    set("host", r.pick([`127.0.0.1:${PORT}`, `localhost:${PORT}`]));
    // A token with every scope most of the time: a missing scope is one refusal, tried often enough.
    const token = r.chance(0.5) ? (r.chance(0.6) ? callers.tokens.all : r.pick(Object.values(callers.tokens))) : undefined;
    if (token) set("authorization", `Bearer ${token}`);
    else if (r.chance(0.3)) {
      set("cookie", `console_session=${callers.session}`);
      set("origin", `http://${headers.host}`);
    } else if (r.chance(0.5)) set("origin", `http://${headers.host}`);
  } else {
    set("host", hostHeader(r, PORT));
    set("origin", originHeader(r, PORT));
    Object.assign(headers, credentials(r, callers));
  }
  if (r.chance(0.1)) set("sec-fetch-site", r.pick(["same-origin", "cross-site", "same-site", "none"]));
  if (r.chance(0.05)) set("accept", r.pick(["text/event-stream", "*/*", "application/xml", "\u00e9"]));

  let body: FuzzBody | undefined;
  const mayHaveBody = method !== "GET" && method !== "HEAD";
  if (shape.body) {
    body = fuzzBody(r, shape.body(r, world, params));
    set("content-type", contentType(r));
  } else if (mayHaveBody && r.chance(0.2)) {
    // A body where none is expected must be ignored or refused, never half-read into a 500.
    body = fuzzBody(r, undefined);
    set("content-type", contentType(r));
  }
  if (body && r.chance(0.05)) set("content-length", r.pick(["0", "-1", "abc", "99999999999", "1e3", "1, 2"]));
  return { method, url, headers, params, ...(body && { body }) };
}

/** Headers saying who calls: nobody (the local operator on loopback), a token, a session, or junk. */
function credentials(r: Random, callers: Callers): Record<string, string> {
  return r.weighted<Record<string, string>>([
    [10, () => ({})],
    [6, () => ({ authorization: `Bearer ${r.pick(Object.values(callers.tokens))}` })],
    [2, () => ({ cookie: `console_session=${callers.session}` })],
    [
      3,
      () => ({
        authorization: r.pick([
          "Bearer nope",
          "Bearer",
          "Bearer ",
          "bearer a b",
          "Basic YWRtaW46YWRtaW4=",
          `Bearer ${"x".repeat(10_000)}`,
          `Bearer ${Object.values(callers.tokens)[0]!}x`,
          "Bearer \u00e9",
        ]),
      }),
    ],
    [
      2,
      () => ({
        cookie: r.pick([
          "console_session=",
          "console_session=garbage",
          `console_session=${"a".repeat(5000)}`,
          "console_session=a; console_session=b",
          "=;;;",
          `console_session=${callers.session}; Path=/`,
        ]),
      }),
    ],
  ]);
}

/** Route parameters as Next hands them to a handler (decoded): plausible ones, or nasty strings. */
function fuzzParams(r: Random, path: string, shape: EndpointShape, world: World): Record<string, string> {
  const params = shape.params?.(r, world) ?? {};
  for (const name of Object.keys(params))
    if (r.chance(0.25)) params[name] = r.chance(0.5) ? nastyString(r) : mixedString(r, r.pick([1, 8, 250, 5000]));
  for (const [, name] of path.matchAll(/\[(\w+)\]/g)) params[name!] ??= nastyString(r);
  return params;
}

/** The path with each `[param]` segment filled in, percent-encoded as a browser would send it. */
function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\[(\w+)\]/g, (_, name: string) => {
    try {
      return encodeURIComponent(params[name] ?? "");
    } catch {
      // A lone surrogate has no UTF-8 form; the handler still sees it through the params.
      return "x";
    }
  });
}

/** The query string: the shape's, with values replaced, keys added, repeated or malformed. */
function fuzzQuery(r: Random, shape: EndpointShape, world: World): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(shape.query?.(r, world) ?? {}))
    if (value !== undefined) query.append(key, r.chance(0.15) ? nastyString(r) : value);
  if (r.chance(0.1)) query.append(r.pick(["unknown", "__proto__", "limit", "cursor", ""]), nastyString(r));
  let text = query.toString();
  if (r.chance(0.1)) text += r.pick(["&limit=1&limit=x", "&%E0=1", "&a=%ZZ", "&&&", "&=", "&limit", "&limit[]=1", "#frag"]);
  return text ? `?${text.replace(/^&/, "")}` : "";
}

/** A short account of the request for a failure report: enough to send it again by hand. */
export function describeRequest(request: FuzzRequest): string {
  const body = request.body;
  const shown =
    body === undefined
      ? "(no body)"
      : typeof body.data === "string"
        ? `${body.label}: ${JSON.stringify(body.data.length > 300 ? `${body.data.slice(0, 300)}…(${body.data.length} chars)` : body.data)}`
        : `${body.label}: bytes ${Buffer.from(body.data.subarray(0, 120)).toString("hex")}`;
  return [
    `${request.method} ${request.url}`,
    `params ${JSON.stringify(request.params, (_k, v: unknown) => (typeof v === "string" && v.length > 120 ? `${v.slice(0, 120)}…(${v.length})` : v))}`,
    `headers ${JSON.stringify(request.headers, (_k, v: unknown) => (typeof v === "string" && v.length > 120 ? `${v.slice(0, 120)}…(${v.length})` : v))}`,
    `body ${shown}${body?.chunked ? " (chunked)" : ""}`,
  ].join("\n  ");
}

/** The web Request for `request`, or undefined when no HTTP client could send it (an invalid header value). */
export function toWebRequest(request: FuzzRequest, signal?: AbortSignal): Request | undefined {
  let body: BodyInit | undefined;
  if (request.body) {
    const data = request.body.data;
    const bytes = (typeof data === "string" ? new TextEncoder().encode(data) : data) as Uint8Array<ArrayBuffer>;
    // Bytes, not a string: a string body would get a text/plain content type the fuzz did not choose.
    body = request.body.chunked ? chunks(bytes) : bytes;
  }
  try {
    return new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      signal,
      ...(body instanceof ReadableStream && { duplex: "half" }),
    } as RequestInit);
  } catch {
    return undefined;
  }
}

/** `bytes` as a stream of a few uneven chunks. */
function chunks(bytes: Uint8Array<ArrayBuffer>): ReadableStream<Uint8Array<ArrayBuffer>> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const size = Math.max(1, Math.ceil(bytes.length / 5));
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}
