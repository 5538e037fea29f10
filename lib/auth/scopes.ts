/**
 * What a token may do: run agents, decide approvals (an operator), manage tools, administer
 * (widen a source's outbound allowance), and list and call tools over MCP. A2A joins when it is served.
 */
export const TOKEN_SCOPES = ["agui", "approvals", "tools", "admin", "mcp"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
