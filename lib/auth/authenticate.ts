import { LOCAL_PRINCIPAL, type Principal } from "./principal";
import type { TokenStore } from "./tokens";

export interface AccessPolicy {
  /** The address the console listens on: anonymous access only when it is loopback. */
  bindHost: string;
  /** Host names served besides the local ones; "*" serves any. */
  allowedHosts: readonly string[];
  tokens: TokenStore;
}

export type AccessResult =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401 | 403 | 421; code: string; message: string };

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
 * Who is calling, checked in this order: the Host header is one the console serves (421 otherwise,
 * against DNS rebinding), then a bearer token (401 when it is wrong), else the anonymous local
 * operator, allowed only when the console is bound to loopback and the Host is a local name.
 * `peer` is the socket's remote address when the server knows it.
 */
export function authenticate(request: Request, policy: AccessPolicy, peer?: string): AccessResult {
  const { served, host, local } = servesHost(request.headers.get("host"), policy.allowedHosts);
  if (!served)
    return { ok: false, status: 421, code: "host_not_served", message: `This console does not serve the host "${host || "(none)"}"; add it to ALLOWED_HOSTS` };

  const authorization = request.headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const principal = match ? policy.tokens.verify(match[1]!) : undefined;
    if (!principal) return { ok: false, status: 401, code: "unauthenticated", message: "The bearer token is unknown or revoked" };
    return { ok: true, principal };
  }
  if (isLoopback(policy.bindHost) && local && (peer === undefined || isLoopback(peer))) return { ok: true, principal: LOCAL_PRINCIPAL };
  return { ok: false, status: 401, code: "unauthenticated", message: "A bearer token is required (create one with `npm run token -- create NAME`)" };
}

/** Refuse a principal without `scope` (403). */
export function requireScope(principal: Principal, scope: string): AccessResult {
  return principal.scopes.includes(scope)
    ? { ok: true, principal }
    : { ok: false, status: 403, code: "forbidden", message: `This token lacks the "${scope}" scope` };
}
