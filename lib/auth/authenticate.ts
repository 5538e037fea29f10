import { DomainError } from "../errors";
import { normalizeOrigin } from "../http/cors";
import { LOCAL_PRINCIPAL, type Principal } from "./principal";
import { cookieValue, SESSION_COOKIE, type SessionStore } from "./sessions";
import type { TokenScope, TokenStore } from "./tokens";

export interface AccessPolicy {
  /** The address the console listens on: anonymous access only when it is loopback. */
  bindHost: string;
  /** Host names served besides the local ones; "*" serves any. */
  allowedHosts: readonly string[];
  tokens: TokenStore;
  /** Operators signed in to the pages (a session cookie); without it only tokens and loopback count. */
  sessions?: SessionStore;
  /** Origins (normalized) whose pages may call with any bearer token (CORS_ORIGINS); a token may list its own. */
  corsOrigins?: readonly string[];
}

/** What authentication reads of a request: its method and headers (a Request, or a page's headers). */
export interface RequestHead {
  method: string;
  headers: Pick<Headers, "get">;
}

const LOCAL_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** True for an address on this machine only (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127(?:\.\d{1,3}){3}$/.test(h) || h === "::ffff:127.0.0.1";
}

/**
 * Whether a Host header names this console: a local name, or one in ALLOWED_HOSTS ("*": any).
 * Refusing the others defeats DNS rebinding. Returns the host name it read.
 */
export function servesHost(header: string | null, allowedHosts: readonly string[]): { served: boolean; host: string; local: boolean } {
  const host = hostName(header);
  const local = LOCAL_NAMES.has(host) || isLoopback(host);
  return { served: local || allowedHosts.includes("*") || allowedHosts.includes(host), host, local };
}

/** The host name of a Host header, without its port. */
export function hostName(header: string | null): string {
  if (!header) return "";
  const value = header.trim().toLowerCase();
  if (value.startsWith("[")) return value.slice(0, value.indexOf("]") + 1);
  return value.replace(/:\d+$/, "");
}

/**
 * Who is calling, checked in this order: the Host header is one the console serves
 * (host_not_served otherwise, against DNS rebinding); a bearer token (unauthenticated when it is
 * wrong); an operator's session cookie; else the anonymous local operator, allowed only when the
 * console is bound to loopback and the Host is a local name. A request that changes state on the
 * strength of a cookie or of being local must come from a page of this console (origin_not_allowed
 * otherwise, against cross-site requests). A request whose Origin is another origin than the
 * console's (CORS) counts only with a bearer token, and only from an origin listed in CORS_ORIGINS
 * or by that token: never with the session cookie or as the local operator, whatever its method.
 * `peer` is the socket's remote address when the server knows it.
 * Rejects with DomainError (host_not_served, unauthenticated, origin_not_allowed).
 */
export async function authenticate(request: RequestHead, policy: AccessPolicy, peer?: string): Promise<Principal> {
  const { local } = assertServedHost(request, policy.allowedHosts);
  const foreign = crossOrigin(request);
  const cookie = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
  // A page elsewhere that sends the operator's cookie (credentials: "include") is refused outright,
  // bearer token or not: what the cookie stands for must never be reachable from another origin.
  if (foreign !== undefined && cookie !== undefined)
    throw new DomainError(
      "origin_not_allowed",
      `A request from ${foreign.slice(0, 200)} may not carry the console's session cookie; send a bearer token without credentials`,
    );

  const authorization = request.headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const bearer = match ? await policy.tokens.bearer(match[1]!) : undefined;
    if (!bearer) throw new DomainError("unauthenticated", "The bearer token is unknown, revoked or expired");
    if (foreign !== undefined) {
      const origin = normalizeOrigin(foreign);
      if (!origin || !(policy.corsOrigins?.includes(origin) || bearer.origins.includes(origin)))
        throw new DomainError(
          "origin_not_allowed",
          `Pages of ${foreign.slice(0, 200)} may not call the console; list the origin in CORS_ORIGINS or on the token`,
        );
    }
    return bearer.principal;
  }
  // A page elsewhere holds no bearer token here: neither a cookie nor being local is a credential across origins.
  if (foreign !== undefined)
    throw new DomainError(
      "origin_not_allowed",
      `A request from ${foreign.slice(0, 200)} needs a bearer token; cookies and the local operator count only on the console's own pages`,
    );
  const session = await policy.sessions?.verify(cookie);
  if (session) return (assertSameOrigin(request, { required: true }), session);
  if (isLocal(policy, local, peer)) return (assertSameOrigin(request, { required: false }), LOCAL_PRINCIPAL);
  throw new DomainError(
    "unauthenticated",
    "Sign in (the console's sign-in page) or send a bearer token (an admin creates one in Settings, API tokens, or with `npm run token -- create NAME`)",
  );
}

/**
 * The request's Host, when it is one the console serves (a local name, or one in ALLOWED_HOSTS),
 * with whether it is local. Refusing the others defeats DNS rebinding. Throws DomainError (host_not_served).
 */
export function assertServedHost(request: Pick<RequestHead, "headers">, allowedHosts: readonly string[]): { host: string; local: boolean } {
  const { served, host, local } = servesHost(request.headers.get("host"), allowedHosts);
  if (!served)
    throw new DomainError("host_not_served", `This console does not serve the host "${host || "(none)"}"; add it to ALLOWED_HOSTS`);
  return { host, local };
}

/** Whether the request is the anonymous local operator's: a loopback console reached by a local name. */
export function isLocal(policy: Pick<AccessPolicy, "bindHost">, localHost: boolean, peer?: string): boolean {
  return isLoopback(policy.bindHost) && localHost && (peer === undefined || isLoopback(peer));
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The request's Origin header when it names another origin than the Host the request was sent to
 * (`null`, an unreadable value and another port included); undefined without an Origin or from a
 * page of this console.
 */
export function crossOrigin(request: Pick<RequestHead, "headers">): string | undefined {
  const origin = request.headers.get("origin");
  if (origin === null || sameHost(origin, request.headers.get("host"))) return undefined;
  return origin;
}

/**
 * Passes when the request only reads or comes from a page of this console: its Origin names the
 * Host it was sent to (scheme, name and port; another port on the same host is another origin).
 * Without an Origin a request passes only when `required` is false and no browser says it is
 * cross-site (curl and SDKs send neither). Throws DomainError (origin_not_allowed).
 */
export function assertSameOrigin(request: RequestHead, { required }: { required: boolean }): void {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return;
  const origin = request.headers.get("origin");
  const site = request.headers.get("sec-fetch-site");
  const ok =
    origin !== null
      ? sameHost(origin, request.headers.get("host"))
      : !required && (site === null || site === "same-origin" || site === "none");
  if (ok) return;
  throw new DomainError(
    "origin_not_allowed",
    origin === null
      ? "A request that changes something must come from a page of this console (no Origin header)"
      : `A request from ${origin} may not change anything here; only this console's own pages may`,
  );
}

/**
 * True when the origin `origin` is the host named by the Host header (same name and port, default
 * ports folded). The scheme is not compared: where TLS ends at a reverse proxy, the page's origin
 * is https while the console itself is reached over http.
 */
function sameHost(origin: string, hostHeader: string | null): boolean {
  if (!hostHeader || !URL.canParse(origin)) return false;
  const from = new URL(origin);
  if (from.protocol !== "http:" && from.protocol !== "https:") return false;
  const target = `${from.protocol}//${hostHeader}`;
  return URL.canParse(target) && new URL(target).host === from.host;
}

/** The principal, when it holds `scope`. Throws DomainError (forbidden). */
export function requireScope(principal: Principal, scope: TokenScope): Principal {
  if (principal.scopes.includes(scope)) return principal;
  throw new DomainError("forbidden", `This token lacks the "${scope}" scope`);
}
