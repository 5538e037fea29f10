import { and, desc, eq, gt, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { apiTokens } from "./schema";

export type TokenRow = typeof apiTokens.$inferSelect;
export type NewTokenRow = Omit<TokenRow, "lastUsedAt" | "revokedAt">;

/**
 * The api_tokens table: tokens by their SHA-256, never the token itself. TokenRows below (SQLite)
 * and PgTokenRows (./postgres/tokens) implement it.
 */
export interface TokenRowStore {
  /**
   * Insert the token unless an active (unrevoked) token has its name; resolves with the row, or
   * undefined when the name is taken. Holds across console instances sharing one database: of
   * concurrent inserts of one name, exactly one gets a row.
   */
  insertOnce(row: NewTokenRow): Promise<TokenRow | undefined>;
  /** Every token, newest first. */
  list(): Promise<TokenRow[]>;
  /** The token with this hash, revoked or not. */
  byHash(hash: string): Promise<TokenRow | undefined>;
  /** The token with this id, revoked or not. */
  byId(id: string): Promise<TokenRow | undefined>;
  /** The allowed origins of each active token (neither revoked nor expired at `now`) that has some. */
  activeOrigins(now: number): Promise<string[][]>;
  /** Note a use of the token. */
  touch(id: string, now: number): Promise<void>;
  /** Revoke the active tokens with this id, else with this name; resolves with how many (each token is revoked once). */
  revoke(idOrName: string, now: number): Promise<number>;
}

/**
 * Tokens on SQLite. Each method's work runs before its promise is returned; insertOnce checks the
 * name and inserts in one immediate transaction, so no other connection writes in between.
 */
export class TokenRows implements TokenRowStore {
  private readonly statements;

  constructor(private readonly db: Db) {
    const p = (name: string) => sql.placeholder(name);
    this.statements = {
      byHash: db
        .select()
        .from(apiTokens)
        .where(eq(apiTokens.hash, p("hash")))
        .prepare(),
      byId: db
        .select()
        .from(apiTokens)
        .where(eq(apiTokens.id, p("id")))
        .prepare(),
      activeByName: db
        .select({ id: apiTokens.id })
        .from(apiTokens)
        .where(and(eq(apiTokens.name, p("name")), isNull(apiTokens.revokedAt)))
        .prepare(),
      activeOrigins: db
        .select({ origins: apiTokens.allowedOrigins })
        .from(apiTokens)
        .where(
          and(
            isNull(apiTokens.revokedAt),
            isNotNull(apiTokens.allowedOrigins),
            or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, p("now"))),
          ),
        )
        .prepare(),
      touch: db
        .update(apiTokens)
        .set({ lastUsedAt: p("now") } as never)
        .where(eq(apiTokens.id, p("id")))
        .prepare(),
    };
  }

  async insertOnce(row: NewTokenRow): Promise<TokenRow | undefined> {
    return this.db.transaction(
      (tx) => {
        if (this.statements.activeByName.get({ name: row.name })) return undefined;
        return tx.insert(apiTokens).values(row).returning().get();
      },
      { behavior: "immediate" },
    );
  }

  async list(): Promise<TokenRow[]> {
    return this.db.select().from(apiTokens).orderBy(desc(apiTokens.createdAt)).all();
  }

  async byHash(hash: string): Promise<TokenRow | undefined> {
    return this.statements.byHash.get({ hash });
  }

  async byId(id: string): Promise<TokenRow | undefined> {
    return this.statements.byId.get({ id });
  }

  async activeOrigins(now: number): Promise<string[][]> {
    return this.statements.activeOrigins.all({ now }).flatMap((row) => (row.origins ? [row.origins] : []));
  }

  async touch(id: string, now: number): Promise<void> {
    this.statements.touch.run({ id, now });
  }

  async revoke(idOrName: string, now: number): Promise<number> {
    const revoke = (where: ReturnType<typeof eq>) =>
      this.db
        .update(apiTokens)
        .set({ revokedAt: now, updatedAt: now })
        .where(and(where, isNull(apiTokens.revokedAt)))
        .run().changes;
    return revoke(eq(apiTokens.id, idOrName)) || revoke(eq(apiTokens.name, idOrName));
  }
}
