import { DomainError } from "../errors";
import { LOCAL_PRINCIPAL, type Principal } from "./principal";
import type { TokenScope, TokenStore } from "./tokens";

export interface AccessPolicy {
  /** The address the console listens on: anonymous access only when it is loopback. */
  bindHost: string;
  /** Host names served besides the local ones; "*" serves any. */
  allowedHosts: readonly string[];
  tokens: TokenStore;
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
 * (host_not_served otherwise, against DNS rebinding), then a bearer token (unauthenticated when it
 * is wrong), else the anonymous local operator, allowed only when the console is bound to loopback
 * and the Host is a local name. `peer` is the socket's remote address when the server knows it.
 * Throws DomainError (host_not_served, unauthenticated).
 */
export function authenticate(request: Request, policy: AccessPolicy, peer?: string): Principal {
  const { served, host, local } = servesHost(request.headers.get("host"), policy.allowedHosts);
  if (!served)
    throw new DomainError("host_not_served", `This console does not serve the host "${host || "(none)"}"; add it to ALLOWED_HOSTS`);

  const authorization = request.headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const principal = match ? policy.tokens.verify(match[1]!) : undefined;
    if (!principal) throw new DomainError("unauthenticated", "The bearer token is unknown or revoked");
    return principal;
  }
  if (isLoopback(policy.bindHost) && local && (peer === undefined || isLoopback(peer))) return LOCAL_PRINCIPAL;
  throw new DomainError("unauthenticated", "A bearer token is required (create one with `npm run token -- create NAME`)");
}

/** The principal, when it holds `scope`. Throws DomainError (forbidden). */
export function requireScope(principal: Principal, scope: TokenScope): Principal {
  if (principal.scopes.includes(scope)) return principal;
  throw new DomainError("forbidden", `This token lacks the "${scope}" scope`);
}
