import { RetryableError, ToolError } from "../../execution/errors";
import { isJsonObject } from "../../json/canonical";
import { jsonTextDepthExceeds, MAX_DOCUMENT_DEPTH } from "../../json/depth";
import type { Logger } from "../../log";
import { AddressNotAllowed, type OutboundGuard } from "../../net";
import type { ToolHandler } from "../../tools/handler";
import { applyAuth, maskedUrl, redact, type AuthRef } from "./auth";
import type { OpenApiBinding, ParameterBinding } from "./binding";
import { readLimited, ResponseTooLarge } from "./read-limited";

/** A source's credential at call time; read per call so a changed secret takes effect at once. */
export type CredentialLookup = () => Promise<{ ref: AuthRef; secret: string } | undefined>;

export interface OperationHandlerOptions {
  credentials: CredentialLookup;
  logger: Logger;
  /** Every call goes through it: an address it refuses (at connect time) fails the call. */
  outbound: OutboundGuard;
}

const EXCERPT = 300;

/**
 * The handler of one OpenAPI tool: builds the request from the arguments, calls it with `fetch`
 * under a timeout and a response size cap. 2xx answers JSON (or text, or null when empty); 4xx
 * except 429 throws ToolError with the status and a short excerpt; 429, 5xx and network failures
 * of idempotent calls throw RetryableError, so the executor retries them and then reports ToolFailed.
 */
export function operationHandler(binding: OpenApiBinding, options: OperationHandlerOptions): ToolHandler {
  const idempotent = binding.method !== "post" && binding.method !== "patch";
  return async (args, call) => {
    const credential = await options.credentials();
    const { url, init } = buildRequest(binding, args);
    if (credential) applyAuth(credential.ref, credential.secret, init.headers, url);
    const logUrl = maskedUrl(url, credential?.ref);
    const started = performance.now();
    const signal = AbortSignal.any([call.signal, AbortSignal.timeout(binding.timeoutMs)]);
    let response: Response;
    try {
      // A redirect comes back as it is (maxRedirects 0) and is refused below.
      response = await options.outbound.fetch(url, { ...init, signal });
    } catch (error) {
      if (error instanceof AddressNotAllowed) throw new ToolError(`The API's address is not allowed: ${error.message}`);
      const reason = redact(error instanceof Error ? `${error.name}: ${error.message}` : String(error), credential?.secret);
      options.logger.warn("openapi call failed before an answer", {
        tool: call.toolName,
        method: binding.method,
        url: logUrl,
        reason,
        attempt: call.attempt,
      });
      if (call.signal.aborted) throw new ToolError("The call was stopped");
      const message = signal.aborted ? `no answer within ${binding.timeoutMs} ms` : "the server could not be reached";
      if (idempotent) throw new RetryableError(message);
      throw new Error(message);
    }
    const status = response.status;
    options.logger.debug("openapi call", {
      tool: call.toolName,
      method: binding.method,
      url: logUrl,
      status,
      ms: Math.round(performance.now() - started),
    });
    if (status >= 300 && status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new ToolError(`HTTP ${status}: the API redirected the call, which is not followed`, { status });
    }
    let text: string;
    try {
      text = binding.method === "head" ? "" : await readLimited(response, binding.maxResponseBytes);
    } catch (error) {
      if (error instanceof ResponseTooLarge)
        throw new ToolError(`HTTP ${status}: the response is larger than ${binding.maxResponseBytes} bytes`, { status });
      throw idempotent ? new RetryableError("the response could not be read") : error;
    }
    if (status === 429 || status >= 500)
      throw Object.assign(new RetryableError(`HTTP ${status}: ${excerpt(text, credential?.secret)}`), { status });
    if (status >= 400) {
      const body = excerpt(text, credential?.secret);
      throw new ToolError(`HTTP ${status}${response.statusText ? ` ${response.statusText}` : ""}: ${body || "(empty body)"}`, {
        status,
        body,
      });
    }
    if (binding.method === "head") return { status, headers: Object.fromEntries(response.headers) };
    if (!text) return null;
    if (/json/i.test(response.headers.get("content-type") ?? "")) {
      // The value is validated, stored and stringified later, all recursively: measured before parsing.
      if (jsonTextDepthExceeds(text, MAX_DOCUMENT_DEPTH))
        throw new ToolError(`HTTP ${status}: the API's JSON answer nests deeper than ${MAX_DOCUMENT_DEPTH} levels`, { status });
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new ToolError(`HTTP ${status}: the API said JSON but sent something else: ${excerpt(text, credential?.secret)}`, { status });
      }
    }
    return text;
  };
}

function excerpt(text: string, secret: string | undefined): string {
  const flat = redact(text, secret).replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}…` : flat;
}

/**
 * The URL and request init for a call: path, query, header and cookie parameters, and the body.
 * Throws ToolError when the arguments would take the request out of the operation's path or off
 * the server's origin (see callUrl).
 */
export function buildRequest(
  binding: OpenApiBinding,
  args: Record<string, unknown>,
): { url: URL; init: RequestInit & { headers: Headers } } {
  const pathValues = new Map<string, string>();
  const headers = new Headers({ accept: "application/json, */*;q=0.5" });
  const query: Array<[string, string]> = [];
  const cookies: string[] = [];
  for (const param of binding.parameters) {
    const value = Object.hasOwn(args, param.property) ? args[param.property] : undefined;
    if (value === undefined || value === null) continue;
    switch (param.in) {
      case "path":
        pathValues.set(param.name, simple(param, value, true));
        break;
      case "query":
        query.push(...queryPairs(param, value));
        break;
      case "header":
        headers.set(param.name, simple(param, value, false));
        break;
      case "cookie":
        cookies.push(`${param.name}=${encodeURIComponent(simple(param, value, false))}`);
        break;
    }
  }
  if (cookies.length) headers.set("cookie", cookies.join("; "));
  const url = callUrl(binding.baseUrl, binding.path, pathValues);
  for (const [key, value] of query) url.searchParams.append(key, value);
  const init: RequestInit & { headers: Headers } = { method: binding.method.toUpperCase(), headers };
  const bodyValue = binding.body && Object.hasOwn(args, binding.body.property) ? args[binding.body.property] : undefined;
  if (binding.body && bodyValue !== undefined) {
    const type = binding.body.contentType;
    headers.set("content-type", type);
    if (/x-www-form-urlencoded/i.test(type)) {
      const form = new URLSearchParams();
      for (const [key, value] of Object.entries(isJsonObject(bodyValue) ? bodyValue : { value: bodyValue })) {
        if (value === undefined || value === null) continue;
        for (const item of Array.isArray(value) ? value : [value])
          form.append(key, typeof item === "object" ? JSON.stringify(item) : String(item));
      }
      init.body = form.toString();
    } else if (/^text\//i.test(type)) init.body = typeof bodyValue === "string" ? bodyValue : JSON.stringify(bodyValue);
    else init.body = JSON.stringify(bodyValue);
  }
  return { url, init };
}

/** True for a path segment the URL parser resolves as "." or "..", in any of the spellings it accepts. */
export function isDotSegment(segment: string): boolean {
  return /^(\.|%2e){1,2}$/i.test(segment);
}

/**
 * The call's URL: the operation's `template` with its path parameters filled in (`values` are
 * already percent-encoded, so a "/" in an argument is %2F), under the base URL's path. The URL is
 * built from the base URL object and only its path is set, so no argument can reach the scheme,
 * host or port. "." and ".." segments are refused rather than encoded: the URL parser (and fetch)
 * resolves %2E%2E exactly like "..", so no encoding of them survives. Finally the result must have
 * the base URL's origin and start with the base path plus the template's text before its first
 * parameter. Throws ToolError otherwise.
 */
export function callUrl(baseUrl: string, template: string, values: ReadonlyMap<string, string>): URL {
  if (!template.startsWith("/") || template.includes("\\"))
    throw new ToolError(`The operation's path "${template}" is not a path under its server (it must start with "/" and hold no "\\")`);
  const path = template.replace(/\{([^{}]+)\}/g, (whole, name: string) => values.get(name) ?? whole);
  if (path.split("/").some(isDotSegment))
    throw new ToolError(`A path argument of ${template} is "." or "..", which would move the call out of the operation's path`);
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new ToolError(`The base URL "${baseUrl}" is not a URL`);
  }
  const url = new URL(base.href);
  url.hash = "";
  url.pathname = `${base.pathname.replace(/\/$/, "")}${path}`;
  const fixed = template.slice(0, template.search(/\{|$/));
  const prefix = new URL(base.href);
  prefix.pathname = `${base.pathname.replace(/\/$/, "")}${fixed}`;
  if (url.origin !== base.origin || !url.pathname.startsWith(prefix.pathname))
    throw new ToolError(`The arguments would move the call to ${url.origin}${url.pathname}, outside ${base.origin}${prefix.pathname}`);
  return url;
}

function scalar(value: unknown): string {
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

/** `simple` style (path and header): arrays and objects as comma-separated lists. */
function simple(param: ParameterBinding, value: unknown, encode: boolean): string {
  const enc = (s: string) => (encode ? encodeURIComponent(s) : s);
  if (param.json) return enc(JSON.stringify(value));
  if (Array.isArray(value)) return value.map((v) => enc(scalar(v))).join(",");
  if (isJsonObject(value))
    return Object.entries(value)
      .flatMap(([k, v]) => (param.explode ? [`${enc(k)}=${enc(scalar(v))}`] : [enc(k), enc(scalar(v))]))
      .join(",");
  return enc(scalar(value));
}

/** Query pairs for `form` (default, exploded), `spaceDelimited`, `pipeDelimited` and `deepObject` styles. */
function queryPairs(param: ParameterBinding, value: unknown): Array<[string, string]> {
  if (param.json) return [[param.name, JSON.stringify(value)]];
  const style = param.style ?? "form";
  const explode = param.explode ?? style === "form";
  if (Array.isArray(value)) {
    if (explode) return value.map((v) => [param.name, scalar(v)]);
    const separator = style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ",";
    return [[param.name, value.map(scalar).join(separator)]];
  }
  if (isJsonObject(value)) {
    if (style === "deepObject") return Object.entries(value).map(([k, v]) => [`${param.name}[${k}]`, scalar(v)]);
    if (explode) return Object.entries(value).map(([k, v]) => [k, scalar(v)]);
    return [
      [
        param.name,
        Object.entries(value)
          .flatMap(([k, v]) => [k, scalar(v)])
          .join(","),
      ],
    ];
  }
  return [[param.name, scalar(value)]];
}
