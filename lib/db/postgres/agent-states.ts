import { and, eq, sql } from "drizzle-orm";
import { likePrefix, type AgentStateRow, type AgentStateRowStore } from "../agent-states";
import { agentStates } from "../schema.pg";
import type { PgDb } from "./open";

/**
 * The agent_states rows on PostgreSQL, the twin of the SQLite AgentStateRows. `take` is one
 * conditional UPDATE … WHERE status = 'paused' RETURNING: PostgreSQL re-checks the condition on
 * the committed row after waiting for a concurrent taker, so of any number of takers on any number
 * of instances exactly one gets the row.
 */
export class PgAgentStateRows implements AgentStateRowStore {
  constructor(private readonly db: PgDb) {}

  async put(row: Omit<AgentStateRow, "createdAt" | "updatedAt">, at: number): Promise<void> {
    const { runId, status, value } = row;
    await this.db
      .insert(agentStates)
      .values({ ...row, createdAt: at, updatedAt: at })
      .onConflictDoUpdate({
        target: [agentStates.agent, agentStates.threadId, agentStates.key],
        set: { runId, status, value, updatedAt: at },
      });
  }

  async get(agent: string, threadId: string, key: string): Promise<AgentStateRow | undefined> {
    const [row] = await this.db
      .select()
      .from(agentStates)
      .where(stateKey(agent, threadId, key));
    return row;
  }

  async take(agent: string, threadId: string, key: string, runId: string, at: number): Promise<AgentStateRow | undefined> {
    const [row] = await this.db
      .update(agentStates)
      .set({ status: "resumed", runId, updatedAt: at })
      .where(and(stateKey(agent, threadId, key), eq(agentStates.status, "paused")))
      .returning();
    return row;
  }

  async list(agent: string, threadId: string, prefix: string): Promise<AgentStateRow[]> {
    return this.db
      .select()
      .from(agentStates)
      .where(and(eq(agentStates.agent, agent), eq(agentStates.threadId, threadId), keyStartsWith(prefix)))
      .orderBy(sql`${agentStates.key} collate "C"`);
  }

  async delete(agent: string, threadId: string, prefix: string): Promise<number> {
    const removed = await this.db
      .delete(agentStates)
      .where(and(eq(agentStates.agent, agent), eq(agentStates.threadId, threadId), keyStartsWith(prefix)))
      .returning({ key: agentStates.key });
    return removed.length;
  }
}

function stateKey(agent: string, threadId: string, key: string) {
  return and(eq(agentStates.agent, agent), eq(agentStates.threadId, threadId), eq(agentStates.key, key));
}

/**
 * Keys starting with `prefix`, case included (SQLite's LIKE ignores the case of ASCII letters, so
 * there "cp:" also matches "CP:1"). `list` orders by `collate "C"`, byte order as on
 * SQLite, whatever the database's collation: the checkpoint saver reads the greatest id as latest.
 */
function keyStartsWith(prefix: string) {
  return sql`${agentStates.key} LIKE ${likePrefix(prefix)} ESCAPE '\\'`;
}
