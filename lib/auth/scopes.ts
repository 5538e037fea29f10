/**
 * What a token may do: run agents, decide approvals (an operator), manage tools, administer
 * (widen a source's outbound allowance), list and call tools over MCP, and call them over A2A.
 */
export const TOKEN_SCOPES = ["agui", "approvals", "tools", "admin", "mcp", "a2a"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/**
 * A token's name: 1 to 64 letters, digits, '.', '_' or '-'. A pattern without anchors, as an
 * input's `pattern` attribute takes it; anchor it to test a whole string (tokenNameValid).
 */
export const TOKEN_NAME_PATTERN = "[A-Za-z0-9_.\\-]{1,64}";
const TOKEN_NAME = new RegExp(`^${TOKEN_NAME_PATTERN}$`);

/** What a token's name must be, as a refusal says it. */
export const TOKEN_NAME_RULE = "A token name is 1 to 64 letters, digits, '.', '_' or '-'";

/** Whether `name` may name a token. */
export function tokenNameValid(name: string): boolean {
  return TOKEN_NAME.test(name);
}
