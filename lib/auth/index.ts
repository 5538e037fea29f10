export { ADMIN_PRINCIPAL, LOCAL_PRINCIPAL, mayActFor, roleOf, type Principal, type Role } from "./principal";
export { SessionStore, SESSION_COOKIE, SESSION_TTL_MS, cookieValue, type OpenedSession } from "./sessions";
export { TokenStore, TokenError, TOKEN_SCOPES, type TokenInfo, type TokenScope } from "./tokens";
export {
  assertSameOrigin,
  crossOrigin,
  assertServedHost,
  authenticate,
  requireScope,
  isLocal,
  isLoopback,
  hostName,
  servesHost,
  type AccessPolicy,
  type RequestHead,
} from "./authenticate";
