/**
 * What a token may do: run agents, decide approvals (an operator), manage tools, and administer
 * (widen a source's outbound allowance). MCP and A2A join when they are served.
 */
export const TOKEN_SCOPES = ["agui", "approvals", "tools", "admin"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
