import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { approvalGrants, toolEvents } from "./schema";

export type Grant = typeof approvalGrants.$inferSelect;

export interface GrantInput {
  tool: string;
  threadId: string;
  toolDigest: string;
  grantedBy: string;
  approvalId?: string;
}

/**
 * "Approve for this thread": remembered grants that let later calls of a tool in the same thread
 * run without asking, for as long as the tool's definition keeps the digest it had when granted.
 * Every grant and revocation is written to the tool's audit trail (tool_events). SqliteGrants
 * below and PgGrants (./postgres/grants) implement it.
 */
export interface GrantStore {
  /** Remember a grant for `tool` in `threadId` (once: an active grant for the same digest is returned as is). */
  grant(input: GrantInput): Promise<Grant>;
  /** The active grant for `tool` in `threadId` made for the definition with `toolDigest`, if any. Reads only. */
  activeFor(tool: string, threadId: string, toolDigest: string): Promise<Grant | undefined>;
  /**
   * Revoke (by "system") the active grants of each tool made for another definition than its
   * current digest, or all of them for a tool that is gone (digest undefined). Called when tools
   * change. Resolves with how many grants it revoked.
   */
  revokeStale(changed: ReadonlyArray<{ name: string; digest: string | undefined }>): Promise<number>;
  /** Revoke a grant; resolves with whether it was active. */
  revoke(id: string, by: string, reason?: string): Promise<boolean>;
  /** Grants of a tool, newest first (active and revoked). */
  forTool(tool: string): Promise<Grant[]>;
}

/** The audit row of a grant or a revocation. */
export function grantEvent(
  type: "grant_added" | "grant_revoked",
  tool: string,
  actor: string,
  data: Record<string, unknown>,
  now: number,
): typeof toolEvents.$inferInsert {
  return { tool, type, actor, data, createdAt: now, updatedAt: now };
}

/** Why revokeStale revoked a grant. */
export const staleReason = (digest: string | undefined) =>
  digest === undefined ? "the tool was removed" : "the tool's definition changed";

/**
 * Grants on SQLite. Each method's work is one synchronous transaction that runs before its
 * promise is returned, so a revocation is in place when revokeStale's caller goes on.
 */
export class SqliteGrants implements GrantStore {
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

  async grant(input: GrantInput): Promise<Grant> {
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
          .values(
            grantEvent(
              "grant_added",
              input.tool,
              input.grantedBy,
              { threadId: input.threadId, grantId: row.id, approvalId: input.approvalId ?? null },
              now,
            ),
          )
          .run();
        return row;
      },
      { behavior: "immediate" },
    );
  }

  async activeFor(tool: string, threadId: string, toolDigest: string): Promise<Grant | undefined> {
    return this.active.get({ tool, threadId, toolDigest });
  }

  async revokeStale(changed: ReadonlyArray<{ name: string; digest: string | undefined }>): Promise<number> {
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
          const reason = staleReason(digest);
          tx.insert(toolEvents)
            .values(
              rows.map((row) => grantEvent("grant_revoked", name, "system", { threadId: row.threadId, grantId: row.id, reason }, now)),
            )
            .run();
          revoked += rows.length;
        }
        return revoked;
      },
      { behavior: "immediate" },
    );
  }

  async revoke(id: string, by: string, reason?: string): Promise<boolean> {
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
          .values(grantEvent("grant_revoked", row.tool, by, { threadId: row.threadId, grantId: id, ...(reason && { reason }) }, now))
          .run();
      return row !== undefined;
    });
  }

  async forTool(tool: string): Promise<Grant[]> {
    return this.db.select().from(approvalGrants).where(eq(approvalGrants.tool, tool)).orderBy(desc(approvalGrants.createdAt)).all();
  }
}
