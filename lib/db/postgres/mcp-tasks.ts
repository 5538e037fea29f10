import { and, count, desc, lte, sql } from "drizzle-orm";
import { mcpTaskWhere, type McpTaskChange, type McpTaskRow, type McpTaskRowStore, type NewMcpTask } from "../mcp-tasks";
import { afterDescending, toPage, type Page } from "../paging";
import { mcpTasks } from "../schema.pg";
import type { PgDb } from "./open";

type Tx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

/**
 * MCP tasks on PostgreSQL, the twin of the SQLite McpTaskRows. A claim and a change of status are
 * conditional UPDATEs, which PostgreSQL re-checks on the committed row after waiting for a
 * concurrent writer, so of any number of instances exactly one claims a task or ends it. An insert
 * holds a transaction advisory lock on its principal while it counts, so instances racing for a
 * principal's last place under the cap take turns and one gets it.
 */
export class PgMcpTaskRows implements McpTaskRowStore {
  constructor(private readonly db: PgDb) {}

  async insert(task: NewMcpTask, cap: number, now: number): Promise<McpTaskRow | undefined> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`mcp_tasks:${task.principal}`}, 0))`);
      if ((await held(tx, task.principal, now)) >= cap) return undefined;
      const [row] = await tx
        .insert(mcpTasks)
        .values({ ...task, createdAt: now, updatedAt: now })
        .returning();
      return row;
    });
  }

  async get(principal: string, id: string, now: number): Promise<McpTaskRow | undefined> {
    const [row] = await this.db
      .select()
      .from(mcpTasks)
      .where(mcpTaskWhere.own(mcpTasks, principal, id, now));
    return row;
  }

  async waitingFor(approvalId: string, now: number): Promise<McpTaskRow[]> {
    return this.db
      .select()
      .from(mcpTasks)
      .where(mcpTaskWhere.waitingFor(mcpTasks, approvalId, now));
  }

  async page(principal: string, cursor: string | undefined, limit: number, now: number): Promise<Page<McpTaskRow>> {
    const rows = await this.db
      .select()
      .from(mcpTasks)
      .where(and(mcpTaskWhere.held(mcpTasks, principal, now), afterDescending(cursor, mcpTasks.createdAt, mcpTasks.id)))
      .orderBy(desc(mcpTasks.createdAt), desc(mcpTasks.id))
      .limit(limit + 1);
    return toPage(rows, limit, (row) => [row.createdAt, row.id]);
  }

  async claim(id: string, leaseUntil: number, now: number): Promise<McpTaskRow | undefined> {
    const [row] = await this.db
      .update(mcpTasks)
      .set({ status: "working", leaseUntil, updatedAt: now })
      .where(mcpTaskWhere.claimable(mcpTasks, id, now))
      .returning();
    return row;
  }

  async update(id: string, change: McpTaskChange, now: number): Promise<McpTaskRow | undefined> {
    const [row] = await this.db
      .update(mcpTasks)
      .set({ ...change, leaseUntil: null, updatedAt: now })
      .where(mcpTaskWhere.unended(mcpTasks, id))
      .returning();
    return row;
  }

  async deleteExpired(now: number): Promise<number> {
    const result = await this.db.delete(mcpTasks).where(lte(mcpTasks.expiresAt, now));
    return result.rowCount ?? 0;
  }

  async countFor(principal: string, now: number): Promise<number> {
    return held(this.db, principal, now);
  }
}

async function held(db: PgDb | Tx, principal: string, now: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(mcpTasks)
    .where(mcpTaskWhere.held(mcpTasks, principal, now));
  return row?.n ?? 0;
}
