/**
 * CORS for the endpoints other apps embed (AG-UI, MCP, A2A). A page on another origin may call them
 * only from an origin the console lists; the answer then names that origin and nothing wider: never
 * `*`, never `null`, and never `Access-Control-Allow-Credentials`, since cookies are not a
 * credential across origins (a bearer token is). What counts as listed is the caller's business
 * (a predicate), so this module knows nothing of tokens or configuration.
 */

/** What a page on another origin may do with one endpoint. */
export interface CorsEndpoint {
  /** The methods the endpoint answers (OPTIONS aside). */
  methods: readonly string[];
  /** The request headers a page may send, lowercase. */
  headers: readonly string[];
  /** The response headers a page may read beyond the ones every browser lets it read. */
  expose: readonly string[];
}

/** Whether an origin (as normalizeOrigin gives it) is one whose pages may call the endpoint. */
export type OriginListed = (origin: string) => boolean | Promise<boolean>;

/** How long a browser may reuse a preflight's answer, in seconds (Chromium caps it at 7200). */
export const PREFLIGHT_MAX_AGE_S = 600;

/**
 * The origin `value` names, serialized as browsers send it (`scheme://host[:port]`, host
 * lowercase, default port left out, no trailing slash), or undefined when it is not an http(s)
 * origin: `null`, a path, a query, credentials, another scheme.
 */
export function normalizeOrigin(value: string): string | undefined {
  const text = value.trim();
  if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) return undefined;
  const url = new URL(text);
  // "https://a.example/" is the origin with its trailing slash; anything after it is not an origin.
  if (url.username || url.password || url.pathname !== "/" || text.includes("?") || text.includes("#")) return undefined;
  return url.origin;
}

/**
 * The origins of a comma-separated list (CORS_ORIGINS, a token's `--origins`), normalized and
 * without repeats. Throws Error naming the first entry that is not an http(s) origin (`*` and
 * `null` included: the console only ever allows origins it can name).
 */
export function parseOriginList(text: string): string[] {
  const origins = new Set<string>();
  for (const entry of text.split(",").map((e) => e.trim())) {
    if (!entry) continue;
    const origin = normalizeOrigin(entry);
    if (!origin) throw new Error(`"${entry}" is not an origin: give scheme://host[:port], e.g. https://app.example.com`);
    origins.add(origin);
  }
  return [...origins];
}

/**
 * The request's Origin, normalized, when it is another origin than the Host it was sent to and
 * `listed` allows it; else undefined (no Origin, the console's own pages, `null`, not listed).
 */
export async function listedOrigin(request: Request, listed: OriginListed): Promise<string | undefined> {
  const header = request.headers.get("origin");
  if (header === null) return undefined;
  const origin = normalizeOrigin(header);
  if (!origin || new URL(origin).host === request.headers.get("host")?.toLowerCase()) return undefined;
  return (await listed(origin)) ? origin : undefined;
}

/**
 * The answer to OPTIONS: 204 with Allow. A preflight from a listed origin also gets
 * Access-Control-Allow-Origin (that origin), -Methods, -Headers and -Max-Age; from any other
 * origin it gets none of them, so the browser refuses to send the request.
 */
export async function preflightAnswer(request: Request, endpoint: CorsEndpoint, listed: OriginListed): Promise<Response> {
  const headers = new Headers({ allow: [...endpoint.methods, "OPTIONS"].join(", "), vary: "Origin" });
  const origin = request.headers.has("access-control-request-method") ? await listedOrigin(request, listed) : undefined;
  if (origin) {
    headers.set("access-control-allow-origin", origin);
    headers.set("access-control-allow-methods", endpoint.methods.join(", "));
    headers.set("access-control-allow-headers", endpoint.headers.join(", "));
    headers.set("access-control-max-age", String(PREFLIGHT_MAX_AGE_S));
  }
  return new Response(null, { status: 204, headers });
}

/**
 * `response` with `Vary: Origin`, and for a listed `origin` the headers that let its page read
 * the answer (Access-Control-Allow-Origin, -Expose-Headers).
 */
export function withCorsHeaders(response: Response, origin: string | undefined, endpoint: CorsEndpoint): Response {
  let answer = response;
  try {
    addCorsHeaders(answer.headers, origin, endpoint);
  } catch {
    // Some responses (a fetch's, Response.error()) have headers that cannot change: copy them once.
    answer = new Response(response.body, response);
    addCorsHeaders(answer.headers, origin, endpoint);
  }
  return answer;
}

function addCorsHeaders(headers: Headers, origin: string | undefined, endpoint: CorsEndpoint): void {
  const vary = headers.get("vary");
  if (!vary) headers.set("vary", "Origin");
  else if (!/(^|,)\s*(origin|\*)\s*(,|$)/i.test(vary)) headers.set("vary", `${vary}, Origin`);
  if (!origin) return;
  headers.set("access-control-allow-origin", origin);
  if (endpoint.expose.length) headers.set("access-control-expose-headers", endpoint.expose.join(", "));
}
