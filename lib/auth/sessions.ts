import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../db";
import { SessionRows, type SessionRowStore } from "../db/sessions";
import { DomainError } from "../errors";
import { ADMIN_PRINCIPAL, type Principal } from "./principal";
import type { TokenStore } from "./tokens";

/** The cookie that carries an operator's session. */
export const SESSION_COOKIE = "console_session";
/** How long a session lasts from sign-in; signing in again starts a new one. */
export const SESSION_TTL_MS = 8 * 3600 * 1000;

export interface OpenedSession {
  /** The cookie's value: shown to the browser once, stored only as a hash. */
  cookie: string;
  principal: Principal;
  expiresAt: number;
}

/**
 * Operator sessions for the pages. Signing in takes an API token (the session then has that
 * token's scopes and ends when it is revoked) or the configured ADMIN_TOKEN. Every check reads the
 * row, so signing out or revoking the token takes effect on the next request, and a session opened
 * on one console instance holds on every instance sharing the database (an admin session on those
 * configured with the same ADMIN_TOKEN). Nothing of a session is kept in memory.
 */
export class SessionStore {
  private readonly rows: SessionRowStore;
  private readonly adminDigest: Buffer | undefined;

  /** Over a SQLite database (its SessionRows), or over any implementation of the rows. */
  constructor(
    rows: Db | SessionRowStore,
    private readonly tokens: TokenStore,
    adminToken: string | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.rows = isRowStore(rows) ? rows : new SessionRows(rows);
    this.adminDigest = adminToken ? sha256(adminToken) : undefined;
  }

  /** Open a session for the holder of `secret`. Rejects with DomainError (unauthenticated) when it is no token. */
  async open(secret: string): Promise<OpenedSession> {
    const now = this.now();
    const expiresAt = now + SESSION_TTL_MS;
    const cookie = randomBytes(32).toString("base64url");
    const opened = async (principal: Principal, tokenId: string | null, principalId = principal.id): Promise<OpenedSession> => {
      await this.rows.sweep(now);
      await this.rows.insert({ idHash: sha256(cookie).toString("hex"), tokenId, principalId, role: principal.role, expiresAt });
      return { cookie, principal, expiresAt };
    };
    if (this.isAdminToken(secret)) return opened(ADMIN_PRINCIPAL, null, this.adminSessionId());
    const tokenId = await this.tokens.idOf(secret);
    const principal = tokenId ? await this.tokens.verifyId(tokenId) : undefined;
    if (!tokenId || !principal) throw new DomainError("unauthenticated", "That token is unknown or revoked");
    return opened(principal, tokenId);
  }

  /** Who the session with this cookie stands for, or undefined (unknown, expired, or its token revoked). */
  async verify(cookie: string | undefined): Promise<Principal | undefined> {
    if (!cookie || cookie.length > 100) return undefined;
    const row = await this.rows.live(sha256(cookie).toString("hex"), this.now());
    if (!row) return undefined;
    // An admin session holds for the ADMIN_TOKEN it was opened with: changing the token ends it.
    if (row.tokenId === null) return this.adminDigest && row.principalId === this.adminSessionId() ? ADMIN_PRINCIPAL : undefined;
    return this.tokens.verifyId(row.tokenId);
  }

  /** End the session with this cookie (signing out); true when there was one. */
  async close(cookie: string | undefined): Promise<boolean> {
    return !!cookie && cookie.length <= 100 && (await this.rows.remove(sha256(cookie).toString("hex")));
  }

  /** What an admin session records: the admin principal and a fingerprint of the ADMIN_TOKEN it was opened with. */
  private adminSessionId(): string {
    return `${ADMIN_PRINCIPAL.id}:${sha256(this.adminDigest!.toString("hex")).toString("hex").slice(0, 16)}`;
  }

  private isAdminToken(secret: string): boolean {
    return !!this.adminDigest && timingSafeEqual(sha256(secret), this.adminDigest);
  }
}

function isRowStore(value: Db | SessionRowStore): value is SessionRowStore {
  return typeof (value as Partial<SessionRowStore>).live === "function";
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** The value of the cookie `name` in a Cookie header, or undefined. */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
