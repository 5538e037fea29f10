export { LOCAL_PRINCIPAL, mayActFor, type Principal } from "./principal";
export { TokenStore, TokenError, TOKEN_SCOPES, type TokenInfo, type TokenScope } from "./tokens";
export { authenticate, requireScope, isLoopback, hostName, type AccessPolicy } from "./authenticate";
