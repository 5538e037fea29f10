import { hash, randomBytes, randomUUID } from "node:crypto";
import type { Db } from "../db";
import { TokenRows, type TokenRow, type TokenRowStore } from "../db/tokens";
import { DomainError } from "../errors";
import { parseOriginList } from "../http/cors";
import { principalFor, tokenPrincipalId, type Principal } from "./principal";
import { TOKEN_NAME_RULE, TOKEN_SCOPES, tokenNameValid, type TokenScope } from "./scopes";

export { TOKEN_SCOPES, type TokenScope } from "./scopes";

export interface TokenInfo {
  id: string;
  name: string;
  scopes: TokenScope[];
  /** Origins whose pages may use the token from a browser besides CORS_ORIGINS; null: none. */
  origins: string[] | null;
  /** An embed token's end (ms since the epoch); null: valid until revoked. */
  expiresAt: number | null;
  /** An embed token's one agent; null: every agent. */
  agent: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** A token name or scope the console refuses. */
export class TokenError extends DomainError<"invalid_token_request"> {
  override readonly name = "TokenError";
  constructor(message: string) {
    super("invalid_token_request", message);
  }
}

const PREFIX = "aguic_";

/** How long an embed token lives when the request does not say, and at most (see createEmbed). */
export const EMBED_TOKEN_DEFAULT_TTL_MS = 60 * 60_000;
export const EMBED_TOKEN_MAX_TTL_MS = 24 * 60 * 60_000;
export const EMBED_TOKEN_MIN_TTL_MS = 60_000;

export interface TokenStoreOptions {
  /** Hears a failed note of a token's use (lastUsedAt); the request that used the token goes on regardless. */
  onTouchError?: (error: unknown) => void;
}

/** API tokens: stored as SHA-256 hashes; the token itself is shown once, at creation. */
export class TokenStore {
  private readonly rows: TokenRowStore;
  private readonly onTouchError: (error: unknown) => void;

  /** Over a SQLite database (its TokenRows), or over any implementation of the rows. */
  constructor(rows: Db | TokenRowStore, options: TokenStoreOptions = {}) {
    this.rows = isRowStore(rows) ? rows : new TokenRows(rows);
    this.onTouchError =
      options.onTouchError ??
      ((error) => console.error(`could not note a token's use: ${error instanceof Error ? error.message : String(error)}`));
  }

  /**
   * Create a token; returns it in clear (the only time it is available) with its record. `origins`
   * lists the origins whose pages may use it from a browser (CORS) besides CORS_ORIGINS; an
   * `expiresAt` (ms) ends it then; an `agent` binds it to that agent (see createEmbed).
   * Of concurrent creations of one name, on any console instance sharing the database, exactly one
   * succeeds. Rejects with TokenError (a bad name, scope or origin, an active token of that name).
   */
  async create(
    name: string,
    scopes: readonly string[] = ["agui"],
    options: { origins?: readonly string[]; expiresAt?: number; agent?: string } = {},
  ): Promise<{ token: string; info: TokenInfo }> {
    if (!tokenNameValid(name)) throw new TokenError(TOKEN_NAME_RULE);
    const unknown = scopes.filter((s) => !(TOKEN_SCOPES as readonly string[]).includes(s));
    if (unknown.length) throw new TokenError(`Unknown scope ${unknown.join(", ")}; scopes are ${TOKEN_SCOPES.join(", ")}`);
    const origins = allowedOrigins(options.origins);
    const token = `${PREFIX}${randomBytes(32).toString("base64url")}`;
    const now = Date.now();
    const row = await this.rows.insertOnce({
      id: randomUUID(),
      name,
      hash: tokenHash(token),
      scopes: [...new Set(scopes)],
      allowedOrigins: origins,
      expiresAt: options.expiresAt ?? null,
      agent: options.agent ?? null,
      createdAt: now,
      updatedAt: now,
    });
    if (!row) throw new TokenError(`An active token named "${name}" exists already; revoke it first`);
    return { token, info: toInfo(row) };
  }

  /**
   * Create an embed token, the credential a page elsewhere (the script-tag widget) holds: scope
   * "agui" only, good for the agent `agent` only, for `ttlMs` (default an hour, 1 minute to 24
   * hours), usable from the pages of `origins`. Its name is made up ("embed-" and random hex), so
   * minting never collides with an operator's token. The caller checks that the agent exists.
   * Rejects with TokenError (a lifetime out of range, a bad origin or agent name).
   */
  async createEmbed(
    agent: string,
    options: { origins?: readonly string[]; ttlMs?: number } = {},
  ): Promise<{ token: string; info: TokenInfo }> {
    const ttl = options.ttlMs ?? EMBED_TOKEN_DEFAULT_TTL_MS;
    if (!Number.isInteger(ttl) || ttl < EMBED_TOKEN_MIN_TTL_MS || ttl > EMBED_TOKEN_MAX_TTL_MS)
      throw new TokenError("An embed token lives from 1 minute to 24 hours");
    if (!agent || agent.length > 64) throw new TokenError("An embed token names one agent (at most 64 characters)");
    const name = `embed-${randomBytes(6).toString("hex")}`;
    return this.create(name, ["agui"], { origins: options.origins, expiresAt: Date.now() + ttl, agent });
  }

  /** Every token, newest first. */
  async list(): Promise<TokenInfo[]> {
    return (await this.rows.list()).map(toInfo);
  }

  /** Revoke by id or name; resolves with how many tokens this call revoked (one already revoked counts for whoever did). */
  async revoke(idOrName: string): Promise<number> {
    return this.rows.revoke(idOrName, Date.now());
  }

  /** The principal a bearer token stands for, or undefined when it is unknown or revoked. */
  async verify(token: string): Promise<Principal | undefined> {
    return (await this.bearer(token))?.principal;
  }

  /**
   * The principal a bearer token stands for with the origins its own record lets pages use it
   * from (besides CORS_ORIGINS), or undefined when it is unknown or revoked.
   */
  async bearer(token: string): Promise<{ principal: Principal; origins: readonly string[] } | undefined> {
    if (!token.startsWith(PREFIX) || token.length > 200) return undefined;
    const row = await this.rows.byHash(tokenHash(token));
    const principal = this.principalOf(row);
    return principal && { principal, origins: row?.allowedOrigins ?? [] };
  }

  /** True when some active token lets pages of `origin` (normalized) use it: a preflight carries no token to tell which. */
  async listsOrigin(origin: string): Promise<boolean> {
    return (await this.rows.activeOrigins(Date.now())).some((origins) => origins.includes(origin));
  }

  /** The principal of an active token (neither revoked nor expired) found by id (a session's token), or undefined. */
  async verifyId(id: string): Promise<Principal | undefined> {
    return this.principalOf(await this.rows.byId(id));
  }

  /** The id of the active token `token` is, or undefined. */
  async idOf(token: string): Promise<string | undefined> {
    if (!token.startsWith(PREFIX) || token.length > 200) return undefined;
    const row = await this.rows.byHash(tokenHash(token));
    return row && !row.revokedAt ? row.id : undefined;
  }

  private principalOf(row: TokenRow | undefined): Principal | undefined {
    if (!row || row.revokedAt) return undefined;
    const now = Date.now();
    if (row.expiresAt !== null && now >= row.expiresAt) return undefined;
    // Written at most once a minute per token: verification is on every request's path. The request
    // does not wait for the write (on SQLite it is done before this returns), and a failed write
    // is reported, not thrown: the token is valid whether or not its use could be noted.
    if (!row.lastUsedAt || now - row.lastUsedAt > 60_000) void this.rows.touch(row.id, now).catch(this.onTouchError);
    return principalFor(tokenPrincipalId(row.name), row.scopes as TokenScope[], row.agent ?? undefined);
  }
}

function isRowStore(value: Db | TokenRowStore): value is TokenRowStore {
  return typeof (value as Partial<TokenRowStore>).insertOnce === "function";
}

/** The origins of `--origins`, normalized; null for none. Throws TokenError naming a bad one. */
function allowedOrigins(given: readonly string[] | undefined): string[] | null {
  if (!given?.length) return null;
  try {
    const origins = parseOriginList(given.join(","));
    return origins.length ? origins : null;
  } catch (error) {
    throw new TokenError(`An allowed origin ${(error as Error).message}`);
  }
}

function tokenHash(token: string): string {
  return hash("sha256", token, "hex");
}

function toInfo(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes as TokenScope[],
    origins: row.allowedOrigins,
    expiresAt: row.expiresAt,
    agent: row.agent,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}
