import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { agentStates } from "./schema";

export type AgentStateRow = typeof agentStates.$inferSelect;
export type AgentStateStatus = "paused" | "resumed" | "saved";

/**
 * What framework agents keep between runs of a thread (an OpenAI Agents SDK run state, LangGraph
 * checkpoints), keyed by agent, thread and a key of the adapter's choosing. A paused state is taken
 * once: `take` turns it "resumed" in the same statement that reads it, so two resumes of the same
 * pause (a replayed request, a second tab) cannot both go on from it.
 */
export class AgentStates {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Write (or replace) the value under `key`. */
  put(agent: string, threadId: string, key: string, runId: string, value: unknown, status: AgentStateStatus = "saved"): void {
    const at = this.now();
    this.db
      .insert(agentStates)
      .values({ agent, threadId, key, runId, status, value, createdAt: at, updatedAt: at })
      .onConflictDoUpdate({
        target: [agentStates.agent, agentStates.threadId, agentStates.key],
        set: { runId, status, value, updatedAt: at },
      })
      .run();
  }

  get(agent: string, threadId: string, key: string): AgentStateRow | undefined {
    return this.db
      .select()
      .from(agentStates)
      .where(and(eq(agentStates.agent, agent), eq(agentStates.threadId, threadId), eq(agentStates.key, key)))
      .get();
  }

  /**
   * The paused value under `key`, marked resumed by `runId`; undefined when there is none or another
   * resume took it first.
   */
  take(agent: string, threadId: string, key: string, runId: string): AgentStateRow | undefined {
    return this.db
      .update(agentStates)
      .set({ status: "resumed", runId, updatedAt: this.now() })
      .where(
        and(eq(agentStates.agent, agent), eq(agentStates.threadId, threadId), eq(agentStates.key, key), eq(agentStates.status, "paused")),
      )
      .returning()
      .get();
  }

  /** The values of a thread whose key starts with `prefix`, in key order. */
  list(agent: string, threadId: string, prefix = ""): AgentStateRow[] {
    return this.db
      .select()
      .from(agentStates)
      .where(and(eq(agentStates.agent, agent), eq(agentStates.threadId, threadId), keyStartsWith(prefix)))
      .orderBy(asc(agentStates.key))
      .all();
  }

  /** Remove a thread's values (all of them, or those whose key starts with `prefix`). */
  delete(agent: string, threadId: string, prefix = ""): number {
    return this.db
      .delete(agentStates)
      .where(and(eq(agentStates.agent, agent), eq(agentStates.threadId, threadId), keyStartsWith(prefix)))
      .run().changes;
  }
}

/** Keys starting with `prefix` (LIKE, with its wildcards in the prefix escaped). */
function keyStartsWith(prefix: string) {
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql`${agentStates.key} LIKE ${pattern} ESCAPE '\\'`;
}
