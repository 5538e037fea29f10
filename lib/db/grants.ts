import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { approvalGrants, toolEvents } from "./schema";

export type Grant = typeof approvalGrants.$inferSelect;

/**
 * "Approve for this thread": remembered grants that let later calls of a tool in the same thread
 * run without asking, for as long as the tool's definition keeps the digest it had when granted.
 * Every grant and revocation is written to the tool's audit trail (tool_events).
 */
export class GrantStore {
  private readonly active;
  private readonly grantedTools;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    const p = (name: string) => sql.placeholder(name);
    this.active = db
      .select()
      .from(approvalGrants)
      .where(
        and(
          eq(approvalGrants.tool, p("tool")),
          eq(approvalGrants.threadId, p("threadId")),
          eq(approvalGrants.toolDigest, p("toolDigest")),
          isNull(approvalGrants.revokedAt),
        ),
      )
      .prepare();
    this.grantedTools = db
      .selectDistinct({ tool: approvalGrants.tool })
      .from(approvalGrants)
      .where(isNull(approvalGrants.revokedAt))
      .prepare();
  }

  /** Remember a grant for `tool` in `threadId` (once: an active grant for the same digest is returned as is). */
  grant(input: { tool: string; threadId: string; toolDigest: string; grantedBy: string; approvalId?: string }): Grant {
    return this.db.transaction(
      (tx) => {
        const existing = this.active.get({ tool: input.tool, threadId: input.threadId, toolDigest: input.toolDigest });
        if (existing) return existing;
        const now = this.now();
        const row = tx
          .insert(approvalGrants)
          .values({ id: `grt_${randomUUID()}`, ...input, approvalId: input.approvalId ?? null, createdAt: now, updatedAt: now })
          .returning()
          .get();
        tx.insert(toolEvents)
          .values({
            tool: input.tool,
            type: "grant_added",
            actor: input.grantedBy,
            data: { threadId: input.threadId, grantId: row.id, approvalId: input.approvalId ?? null },
            createdAt: now,
            updatedAt: now,
          })
          .run();
        return row;
      },
      { behavior: "immediate" },
    );
  }

  /** The active grant for `tool` in `threadId` made for the definition with `toolDigest`, if any. Reads only. */
  activeFor(tool: string, threadId: string, toolDigest: string): Grant | undefined {
    return this.active.get({ tool, threadId, toolDigest });
  }

  /**
   * Revoke (by "system") the active grants of each tool made for another definition than its
   * current digest, or all of them for a tool that is gone (digest undefined). Called when tools
   * change. Returns how many grants it revoked.
   */
  revokeStale(changed: ReadonlyArray<{ name: string; digest: string | undefined }>): number {
    // Imports change thousands of tools at once; only the few with active grants need a look.
    const granted = changed.length ? new Set(this.grantedTools.all().map((row) => row.tool)) : new Set<string>();
    const tools = changed.filter((tool) => granted.has(tool.name));
    if (!tools.length) return 0;
    const now = this.now();
    return this.db.transaction(
      (tx) => {
        let revoked = 0;
        for (const { name, digest } of tools) {
          const rows = tx
            .update(approvalGrants)
            .set({ revokedAt: now, revokedBy: "system", updatedAt: now })
            .where(
              and(
                eq(approvalGrants.tool, name),
                isNull(approvalGrants.revokedAt),
                digest === undefined ? undefined : ne(approvalGrants.toolDigest, digest),
              ),
            )
            .returning()
            .all();
          if (!rows.length) continue;
          const reason = digest === undefined ? "the tool was removed" : "the tool's definition changed";
          tx.insert(toolEvents)
            .values(
              rows.map((row) => ({
                tool: name,
                type: "grant_revoked" as const,
                actor: "system",
                data: { threadId: row.threadId, grantId: row.id, reason },
                createdAt: now,
                updatedAt: now,
              })),
            )
            .run();
          revoked += rows.length;
        }
        return revoked;
      },
      { behavior: "immediate" },
    );
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
          .values({
            tool: row.tool,
            type: "grant_revoked",
            actor: by,
            data: { threadId: row.threadId, grantId: id, ...(reason && { reason }) },
            createdAt: now,
            updatedAt: now,
          })
          .run();
      return row !== undefined;
    });
  }

  /** Grants of a tool, newest first (active and revoked). */
  forTool(tool: string): Grant[] {
    return this.db.select().from(approvalGrants).where(eq(approvalGrants.tool, tool)).orderBy(desc(approvalGrants.createdAt)).all();
  }
}
