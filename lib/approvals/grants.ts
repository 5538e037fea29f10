import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../db";
import { approvalGrants, toolEvents } from "../db/schema";

export type Grant = typeof approvalGrants.$inferSelect;

/**
 * "Approve for this thread": remembered grants that let later calls of a tool in the same thread
 * run without asking, for as long as the tool's definition keeps the digest it had when granted.
 * Every grant and revocation is written to the tool's audit trail (tool_events).
 */
export class GrantStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Remember a grant for `tool` in `threadId` (once: an active grant for the same digest is returned as is). */
  grant(input: { tool: string; threadId: string; toolDigest: string; grantedBy: string; approvalId?: string }): Grant {
    return this.db.transaction(
      (tx) => {
        const existing = tx
          .select()
          .from(approvalGrants)
          .where(and(eq(approvalGrants.tool, input.tool), eq(approvalGrants.threadId, input.threadId), eq(approvalGrants.toolDigest, input.toolDigest), isNull(approvalGrants.revokedAt)))
          .get();
        if (existing) return existing;
        const now = this.now();
        const row = tx
          .insert(approvalGrants)
          .values({ id: `grt_${randomUUID()}`, ...input, approvalId: input.approvalId ?? null, createdAt: now, updatedAt: now })
          .returning()
          .get();
        tx.insert(toolEvents)
          .values({ tool: input.tool, type: "grant_added", actor: input.grantedBy, data: { threadId: input.threadId, grantId: row.id, approvalId: input.approvalId ?? null }, createdAt: now, updatedAt: now })
          .run();
        return row;
      },
      { behavior: "immediate" },
    );
  }

  /**
   * The active grant for `tool` in `threadId` that still matches `toolDigest`. Grants made for an
   * earlier definition of the tool are revoked on the way (by "system").
   */
  activeFor(tool: string, threadId: string, toolDigest: string): Grant | undefined {
    const active = this.db
      .select()
      .from(approvalGrants)
      .where(and(eq(approvalGrants.tool, tool), eq(approvalGrants.threadId, threadId), isNull(approvalGrants.revokedAt)))
      .all();
    let match: Grant | undefined;
    for (const grant of active) {
      if (grant.toolDigest === toolDigest) match = grant;
      else this.revoke(grant.id, "system", "the tool's definition changed");
    }
    return match;
  }

  /** Revoke a grant; returns whether it was active. */
  revoke(id: string, by: string, reason?: string): boolean {
    const now = this.now();
    return this.db.transaction((tx) => {
      const row = tx
        .update(approvalGrants)
        .set({ revokedAt: now, revokedBy: by, updatedAt: now })
        .where(and(eq(approvalGrants.id, id), isNull(approvalGrants.revokedAt)))
        .returning()
        .get();
      if (row)
        tx.insert(toolEvents)
          .values({ tool: row.tool, type: "grant_revoked", actor: by, data: { threadId: row.threadId, grantId: id, ...(reason && { reason }) }, createdAt: now, updatedAt: now })
          .run();
      return row !== undefined;
    });
  }

  /** Grants of a tool, newest first (active and revoked). */
  forTool(tool: string): Grant[] {
    return this.db.select().from(approvalGrants).where(eq(approvalGrants.tool, tool)).orderBy(desc(approvalGrants.createdAt)).all();
  }
}
