import { and, desc, eq, gt, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { apiTokens } from "./schema";

export type TokenRow = typeof apiTokens.$inferSelect;

/** The api_tokens table: tokens by their SHA-256, never the token itself. */
export class TokenRows {
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

  insert(row: Omit<TokenRow, "lastUsedAt" | "revokedAt">): TokenRow {
    return this.db.insert(apiTokens).values(row).returning().get();
  }

  /** Every token, newest first. */
  list(): TokenRow[] {
    return this.db.select().from(apiTokens).orderBy(desc(apiTokens.createdAt)).all();
  }

  /** The token with this hash, revoked or not. */
  byHash(hash: string): TokenRow | undefined {
    return this.statements.byHash.get({ hash });
  }

  /** The token with this id, revoked or not. */
  byId(id: string): TokenRow | undefined {
    return this.statements.byId.get({ id });
  }

  /** The allowed origins of each active token (neither revoked nor expired at `now`) that has some. */
  activeOrigins(now: number): string[][] {
    return this.statements.activeOrigins.all({ now }).flatMap((row) => (row.origins ? [row.origins] : []));
  }

  /** Note a use of the token. */
  touch(id: string, now: number): void {
    this.statements.touch.run({ id, now });
  }

  /** Revoke the active tokens with this id, else with this name; returns how many. */
  revoke(idOrName: string, now: number): number {
    const revoke = (where: ReturnType<typeof eq>) =>
      this.db
        .update(apiTokens)
        .set({ revokedAt: now, updatedAt: now })
        .where(and(where, isNull(apiTokens.revokedAt)))
        .run().changes;
    return revoke(eq(apiTokens.id, idOrName)) || revoke(eq(apiTokens.name, idOrName));
  }
}
