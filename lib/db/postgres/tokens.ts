import { and, desc, eq, gt, isNotNull, isNull, or, sql } from "drizzle-orm";
import { apiTokens } from "../schema.pg";
import type { NewTokenRow, TokenRow, TokenRowStore } from "../tokens";
import type { PgDb } from "./open";

/**
 * Tokens on PostgreSQL, the twin of the SQLite TokenRows.
 *
 * Nothing in the schema makes a name unique among active tokens (a revoked token keeps its name),
 * so insertOnce takes a transaction-scoped advisory lock on the name before it looks: a second
 * instance creating the same name waits for the first to commit, then sees its row and inserts
 * nothing. Revocation is a conditional update (`revoked_at is null`), so a token is revoked once
 * whoever else revokes it at the same moment.
 */
export class PgTokenRows implements TokenRowStore {
  private readonly statements;

  constructor(private readonly db: PgDb) {
    this.statements = {
      // On every bearer request's path: prepared once per connection (the name is unique in the app).
      byHash: db
        .select()
        .from(apiTokens)
        .where(eq(apiTokens.hash, sql.placeholder("hash")))
        .prepare("api_tokens_by_hash"),
    };
  }

  async insertOnce(row: NewTokenRow): Promise<TokenRow | undefined> {
    return this.db.transaction(async (tx) => {
      // hashtextextended is stable for a given text within a server version, which is all a lock
      // held for one transaction needs.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`api_token_name:${row.name}`}, 0))`);
      const [taken] = await tx
        .select({ id: apiTokens.id })
        .from(apiTokens)
        .where(and(eq(apiTokens.name, row.name), isNull(apiTokens.revokedAt)))
        .limit(1);
      if (taken) return undefined;
      const [inserted] = await tx.insert(apiTokens).values(row).returning();
      return inserted;
    });
  }

  async list(): Promise<TokenRow[]> {
    return this.db.select().from(apiTokens).orderBy(desc(apiTokens.createdAt));
  }

  async byHash(hash: string): Promise<TokenRow | undefined> {
    const [row] = await this.statements.byHash.execute({ hash });
    return row;
  }

  async byId(id: string): Promise<TokenRow | undefined> {
    const [row] = await this.db.select().from(apiTokens).where(eq(apiTokens.id, id));
    return row;
  }

  async activeOrigins(now: number): Promise<string[][]> {
    const rows = await this.db
      .select({ origins: apiTokens.allowedOrigins })
      .from(apiTokens)
      .where(
        and(
          isNull(apiTokens.revokedAt),
          isNotNull(apiTokens.allowedOrigins),
          or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, now)),
        ),
      );
    return rows.flatMap((row) => (row.origins ? [row.origins] : []));
  }

  async touch(id: string, now: number): Promise<void> {
    await this.db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, id));
  }

  async revoke(idOrName: string, now: number): Promise<number> {
    const revoke = async (where: ReturnType<typeof eq>) =>
      (
        await this.db
          .update(apiTokens)
          .set({ revokedAt: now, updatedAt: now })
          .where(and(where, isNull(apiTokens.revokedAt)))
          .returning({ id: apiTokens.id })
      ).length;
    return (await revoke(eq(apiTokens.id, idOrName))) || (await revoke(eq(apiTokens.name, idOrName)));
  }
}
