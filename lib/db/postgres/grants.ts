import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull, ne, sql } from "drizzle-orm";
import { grantEvent, staleReason, type Grant, type GrantInput, type GrantStore } from "../grants";
import { approvalGrants, toolEvents } from "../schema.pg";
import type { PgDb } from "./open";

/**
 * "Approve for this thread" grants on PostgreSQL, the twin of SqliteGrants.
 *
 * Two instances may grant the same tool in the same thread at once (two approvals decided on two
 * instances). Each grant takes a transaction-scoped advisory lock on its (tool, thread, digest)
 * before it looks for an active grant, so the second waits for the first to commit, then finds and
 * returns its row: one active grant, one audit row. Revocations are conditional updates (`revoked_at
 * is null`), so a grant is revoked once whoever else revokes it at the same moment.
 */
export class PgGrants implements GrantStore {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => number = Date.now,
  ) {}

  async grant(input: GrantInput): Promise<Grant> {
    return this.db.transaction(async (tx) => {
      // hashtextextended is stable for a given text within a server version, which is all a lock
      // held for one transaction needs.
      const key = `grant:${input.tool}:${input.threadId}:${input.toolDigest}`;
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
      const [existing] = await tx
        .select()
        .from(approvalGrants)
        .where(activeGrant(input.tool, input.threadId, input.toolDigest))
        .limit(1);
      if (existing) return existing;
      const now = this.now();
      const [row] = await tx
        .insert(approvalGrants)
        .values({ id: `grt_${randomUUID()}`, ...input, approvalId: input.approvalId ?? null, createdAt: now, updatedAt: now })
        .returning();
      await tx
        .insert(toolEvents)
        .values(
          grantEvent(
            "grant_added",
            input.tool,
            input.grantedBy,
            { threadId: input.threadId, grantId: row!.id, approvalId: input.approvalId ?? null },
            now,
          ),
        );
      return row!;
    });
  }

  async activeFor(tool: string, threadId: string, toolDigest: string): Promise<Grant | undefined> {
    const [row] = await this.db
      .select()
      .from(approvalGrants)
      .where(activeGrant(tool, threadId, toolDigest))
      .limit(1);
    return row;
  }

  async revokeStale(changed: ReadonlyArray<{ name: string; digest: string | undefined }>): Promise<number> {
    if (!changed.length) return 0;
    // Imports change thousands of tools at once; only the few with active grants need a look.
    const granted = new Set(
      (await this.db.selectDistinct({ tool: approvalGrants.tool }).from(approvalGrants).where(isNull(approvalGrants.revokedAt))).map(
        (row) => row.tool,
      ),
    );
    const tools = changed.filter((tool) => granted.has(tool.name));
    if (!tools.length) return 0;
    const now = this.now();
    return this.db.transaction(async (tx) => {
      let revoked = 0;
      for (const { name, digest } of tools) {
        const rows = await tx
          .update(approvalGrants)
          .set({ revokedAt: now, revokedBy: "system", updatedAt: now })
          .where(
            and(
              eq(approvalGrants.tool, name),
              isNull(approvalGrants.revokedAt),
              digest === undefined ? undefined : ne(approvalGrants.toolDigest, digest),
            ),
          )
          .returning();
        if (!rows.length) continue;
        const reason = staleReason(digest);
        await tx
          .insert(toolEvents)
          .values(rows.map((row) => grantEvent("grant_revoked", name, "system", { threadId: row.threadId, grantId: row.id, reason }, now)));
        revoked += rows.length;
      }
      return revoked;
    });
  }

  async revoke(id: string, by: string, reason?: string): Promise<boolean> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(approvalGrants)
        .set({ revokedAt: now, revokedBy: by, updatedAt: now })
        .where(and(eq(approvalGrants.id, id), isNull(approvalGrants.revokedAt)))
        .returning();
      if (row)
        await tx
          .insert(toolEvents)
          .values(grantEvent("grant_revoked", row.tool, by, { threadId: row.threadId, grantId: id, ...(reason && { reason }) }, now));
      return row !== undefined;
    });
  }

  async forTool(tool: string): Promise<Grant[]> {
    return this.db.select().from(approvalGrants).where(eq(approvalGrants.tool, tool)).orderBy(desc(approvalGrants.createdAt));
  }
}

function activeGrant(tool: string, threadId: string, toolDigest: string) {
  return and(
    eq(approvalGrants.tool, tool),
    eq(approvalGrants.threadId, threadId),
    eq(approvalGrants.toolDigest, toolDigest),
    isNull(approvalGrants.revokedAt),
  );
}
