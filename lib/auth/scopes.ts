/**
 * What a token may do: run agents, decide approvals (an operator), manage tools, administer
 * (widen a source's outbound allowance), list and call tools over MCP, and call them over A2A.
 */
export const TOKEN_SCOPES = ["agui", "approvals", "tools", "admin", "mcp", "a2a"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
