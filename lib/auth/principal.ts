import { TOKEN_SCOPES, type TokenScope } from "./tokens";

/** Who is calling: recorded on runs and approvals; only its owner or an operator answers an interrupt. */
export interface Principal {
  /** "local" for the anonymous loopback user, "token:<name>" for a bearer token. */
  id: string;
  /** May decide approvals of any caller (the local user, or a token with the approvals scope). */
  operator: boolean;
  scopes: readonly TokenScope[];
}

/** The anonymous user of a console bound to loopback: an operator of their own machine. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ id: "local", operator: true, scopes: Object.freeze([...TOKEN_SCOPES]) });

/** True when `principal` may act for `owner` (itself, or an operator). */
export function mayActFor(principal: Principal, owner: string): boolean {
  return principal.operator || principal.id === owner;
}
