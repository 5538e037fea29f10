import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "./connection";
import { agentStates } from "./schema";

export type AgentStateRow = typeof agentStates.$inferSelect;
export type AgentStateStatus = "paused" | "resumed" | "saved";

/**
 * What AgentStates needs from its rows, whatever the database. AgentStateRows (SQLite, below) and
 * PgAgentStateRows (./postgres/agent-states) implement it.
 */
export interface AgentStateRowStore {
  /** Write (or replace) the row of (agent, thread, key). */
  put(row: Omit<AgentStateRow, "createdAt" | "updatedAt">, at: number): Promise<void>;
  get(agent: string, threadId: string, key: string): Promise<AgentStateRow | undefined>;
  /**
   * The paused row, turned "resumed" by `runId` in the statement that reads it; undefined when there
   * is none or another caller (on any instance) took it first.
   */
  take(agent: string, threadId: string, key: string, runId: string, at: number): Promise<AgentStateRow | undefined>;
  /** A thread's rows whose key starts with `prefix`, in key order. */
  list(agent: string, threadId: string, prefix: string): Promise<AgentStateRow[]>;
  /** Remove a thread's rows whose key starts with `prefix`; resolves with how many went. */
  delete(agent: string, threadId: string, prefix: string): Promise<number>;
}

/** The agent_states rows on SQLite. Each method's work runs, committed, before its promise is returned. */
export class AgentStateRows implements AgentStateRowStore {
  constructor(private readonly db: Db) {}

  async put(row: Omit<AgentStateRow, "createdAt" | "updatedAt">, at: number): Promise<void> {
    const { runId, status, value } = row;
    this.db
      .insert(agentStates)
      .values({ ...row, createdAt: at, updatedAt: at })
      .onConflictDoUpdate({
        target: [agentStates.agent, agentStates.threadId, agentStates.key],
        set: { runId, status, value, updatedAt: at },
      })
      .run();
  }

  async get(agent: string, threadId: string, key: string): Promise<AgentStateRow | undefined> {
    return this.db
      .select()
      .from(agentStates)
      .where(stateKey(agent, threadId, key))
      .get();
  }

  async take(agent: string, threadId: string, key: string, runId: string, at: number): Promise<AgentStateRow | undefined> {
    return this.db
      .update(agentStates)
      .set({ status: "resumed", runId, updatedAt: at })
      .where(and(stateKey(agent, threadId, key), eq(agentStates.status, "paused")))
      .returning()
      .get();
  }

  async list(agent: string, threadId: string, prefix: string): Promise<AgentStateRow[]> {
    return this.db
      .select()
      .from(agentStates)
      .where(and(eq(agentStates.agent, agent), eq(agentStates.threadId, threadId), keyStartsWith(prefix)))
      .orderBy(asc(agentStates.key))
      .all();
  }

  async delete(agent: string, threadId: string, prefix: string): Promise<number> {
    return this.db
      .delete(agentStates)
      .where(and(eq(agentStates.agent, agent), eq(agentStates.threadId, threadId), keyStartsWith(prefix)))
      .run().changes;
  }
}

function stateKey(agent: string, threadId: string, key: string) {
  return and(eq(agentStates.agent, agent), eq(agentStates.threadId, threadId), eq(agentStates.key, key));
}

/** Keys starting with `prefix` (LIKE, with its wildcards in the prefix escaped). */
function keyStartsWith(prefix: string) {
  return sql`${agentStates.key} LIKE ${likePrefix(prefix)} ESCAPE '\\'`;
}

/** The LIKE pattern of keys starting with `prefix`, escaped with a backslash (both dialects). */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * What framework agents keep between runs of a thread (an OpenAI Agents SDK run state, LangGraph
 * checkpoints), keyed by agent, thread and a key of the adapter's choosing. A paused state is taken
 * once: `take` turns it "resumed" in the same statement that reads it, so two resumes of the same
 * pause (a replayed request, a second tab, another console instance) cannot both go on from it.
 */
export class AgentStates {
  private readonly rows: AgentStateRowStore;

  /** Over a SQLite database (its AgentStateRows), or over any implementation of the rows. */
  constructor(
    rows: Db | AgentStateRowStore,
    private readonly now: () => number = Date.now,
  ) {
    this.rows = isRowStore(rows) ? rows : new AgentStateRows(rows);
  }

  /** Write (or replace) the value under `key`. */
  put(agent: string, threadId: string, key: string, runId: string, value: unknown, status: AgentStateStatus = "saved"): Promise<void> {
    return this.rows.put({ agent, threadId, key, runId, status, value }, this.now());
  }

  get(agent: string, threadId: string, key: string): Promise<AgentStateRow | undefined> {
    return this.rows.get(agent, threadId, key);
  }

  /**
   * The paused value under `key`, marked resumed by `runId`; undefined when there is none or another
   * resume took it first.
   */
  take(agent: string, threadId: string, key: string, runId: string): Promise<AgentStateRow | undefined> {
    return this.rows.take(agent, threadId, key, runId, this.now());
  }

  /** The values of a thread whose key starts with `prefix`, in key order. */
  list(agent: string, threadId: string, prefix = ""): Promise<AgentStateRow[]> {
    return this.rows.list(agent, threadId, prefix);
  }

  /** Remove a thread's values (all of them, or those whose key starts with `prefix`); resolves with how many went. */
  delete(agent: string, threadId: string, prefix = ""): Promise<number> {
    return this.rows.delete(agent, threadId, prefix);
  }
}

function isRowStore(value: Db | AgentStateRowStore): value is AgentStateRowStore {
  return typeof (value as Partial<AgentStateRowStore>).take === "function";
}
