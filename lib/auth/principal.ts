import { TOKEN_SCOPES, type TokenScope } from "./scopes";

/**
 * What a signed-in person may do on the pages: a viewer reads, an operator also decides approvals,
 * an admin also widens what a source may reach. The API reads the same thing from scopes.
 */
export type Role = "viewer" | "operator" | "admin";

/** Who is calling: recorded on runs and approvals; only its owner or an operator answers an interrupt. */
export interface Principal {
  /** "local" for the anonymous loopback user, "token:<name>" for a bearer token, "admin" for ADMIN_TOKEN. */
  id: string;
  /** May decide approvals of any caller (the local user, or a token with the approvals scope). */
  operator: boolean;
  scopes: readonly TokenScope[];
  role: Role;
  /** An embed token's one agent: the AG-UI endpoint refuses it any other (403). Absent: every agent. */
  agent?: string;
}

/** The principal id of API token `name`: "token:<name>". */
export function tokenPrincipalId(name: string): string {
  return `${TOKEN_PRINCIPAL_PREFIX}${name}`;
}

/** The name of the API token a principal id stands for, or undefined for any other caller. */
export function tokenNameOf(principalId: string): string | undefined {
  return principalId.startsWith(TOKEN_PRINCIPAL_PREFIX) ? principalId.slice(TOKEN_PRINCIPAL_PREFIX.length) : undefined;
}

const TOKEN_PRINCIPAL_PREFIX = "token:";

/** The role that a set of scopes gives: admin with "admin", operator with "approvals", else viewer. */
export function roleOf(scopes: readonly TokenScope[]): Role {
  if (scopes.includes("admin")) return "admin";
  return scopes.includes("approvals") ? "operator" : "viewer";
}

/** The principal holding `scopes`, under `id`; bound to one agent when `agent` is given. */
export function principalFor(id: string, scopes: readonly TokenScope[], agent?: string): Principal {
  const role = roleOf(scopes);
  return Object.freeze({
    id,
    operator: role !== "viewer",
    scopes: Object.freeze([...scopes]),
    role,
    ...(agent !== undefined && { agent }),
  });
}

/** The anonymous user of a console bound to loopback: the admin of their own machine. */
export const LOCAL_PRINCIPAL: Principal = principalFor("local", TOKEN_SCOPES);

/** Whoever signed in with the configured ADMIN_TOKEN. */
export const ADMIN_PRINCIPAL: Principal = principalFor("admin", TOKEN_SCOPES);

/** True when `principal` may act for `owner` (itself, or an operator). */
export function mayActFor(principal: Principal, owner: string): boolean {
  return principal.operator || principal.id === owner;
}
