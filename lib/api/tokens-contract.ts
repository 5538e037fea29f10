// The contract of /api/tokens with its clients (the Embed page among them): what POST takes and
// answers, and how GET lists tokens. Re-exported by contracts.ts, which components import. A token's
// secret appears in exactly one answer, the POST that created it; the list never carries it.
import { z } from "zod";
import { TOKEN_NAME_RULE, TOKEN_SCOPES, tokenNameValid, type TokenScope } from "../auth/scopes";

export { TOKEN_NAME_PATTERN, TOKEN_SCOPES, type TokenScope } from "../auth/scopes";

/** A token's name, as the token store takes it. */
export const TokenName = z.string().refine(tokenNameValid, TOKEN_NAME_RULE);

/** POST /api/tokens: a name and at least one known scope (each at most once). */
export const NewToken = z.strictObject({
  name: TokenName,
  scopes: z
    .array(z.enum(TOKEN_SCOPES))
    .min(1, "A token needs at least one scope")
    .max(TOKEN_SCOPES.length)
    .refine((scopes) => new Set(scopes).size === scopes.length, "Each scope is listed once"),
});
export type NewToken = z.infer<typeof NewToken>;

/** A token as the list shows it: never its secret, nor its hash. Times are ms since the epoch. */
export interface TokenView {
  id: string;
  name: string;
  scopes: TokenScope[];
  /** An embed token's one agent; null: every agent. */
  agent: string | null;
  /** When an embed token stops working (ms since the epoch); null: when it is revoked. */
  expiresAt: number | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** The answer to POST /api/tokens: the record, and the secret, shown this once. */
export interface CreatedToken extends TokenView {
  token: string;
}

/** What each scope lets a token do, as the Settings page explains it. */
export const SCOPE_ABOUT: Readonly<Record<TokenScope, string>> = {
  agui: "Chat with the agents over AG-UI, and answer its own runs' approvals",
  approvals: "See and decide any caller's approvals",
  tools: "Browse, try, export and change tools; import sources; read the settings",
  admin: "Create and revoke tokens, change the settings, widen a source's outbound allowance",
  mcp: "List and call the registry's tools over MCP",
  a2a: "Call the registry's tools over A2A",
};

/** The scope sets the Embed page offers: what a client that embeds an agent needs, no more. */
export const EMBED_SCOPE_CHOICES: ReadonlyArray<{ scopes: TokenScope[]; label: string }> = [
  { scopes: ["agui"], label: "Chat with the agents (agui)" },
  { scopes: ["agui", "approvals"], label: "Chat and decide any caller's approvals (agui, approvals)" },
];

/**
 * POST /api/tokens/embed: an embed token for one agent, the credential of the script-tag widget.
 * `ttlSeconds` defaults to an hour and is at most a day; `origins` are the pages' origins
 * (`scheme://host[:port]`) allowed to use it besides CORS_ORIGINS.
 */
export const NewEmbedToken = z.strictObject({
  agent: z.string().min(1, "Name the agent").max(64),
  origins: z.array(z.string().max(300)).max(20).optional(),
  ttlSeconds: z
    .number()
    .int()
    .min(60, "An embed token lives at least a minute")
    .max(24 * 60 * 60, "An embed token lives at most 24 hours")
    .optional(),
});
export type NewEmbedToken = z.infer<typeof NewEmbedToken>;

/** The answer to POST /api/tokens/embed: the record with its agent, origins and end, and the secret, shown this once. */
export interface CreatedEmbedToken extends CreatedToken {
  agent: string;
  origins: string[];
  expiresAt: number;
}
