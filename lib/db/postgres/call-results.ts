import { and, desc, eq } from "drizzle-orm";
import type { CallKey } from "../../execution/call-record";
import type { ToolResult } from "../../execution/result";
import type { CallResultStore, PastCall, PastCallFilter } from "../call-results";
import { pageSize } from "../paging";
import { callResults } from "../schema.pg";
import type { PgDb } from "./open";

/**
 * The call record and each tool's call history on PostgreSQL, the twin of the SQLite CallResults.
 *
 * The first record of a call wins across every instance sharing the database: `put` is one
 * INSERT … ON CONFLICT DO NOTHING on the call's primary key, and PostgreSQL makes a concurrent
 * insert of the same key wait for the first to commit, then do nothing. So of any number of puts
 * on any number of instances exactly one reports true, and a `get` after any of them has returned
 * reads the winner's result.
 *
 * No write-behind here: `put` resolves only once its row is committed, so a result the executor
 * has handed to a client is on disk, and a retry sent to any instance is answered from it. (The
 * SQLite store can batch writes because one process answers every retry from its own memory; on
 * PostgreSQL the retry may reach an instance that never saw that memory.)
 *
 * get and put are plain parameterised queries on the pool, without names: node-postgres keeps
 * prepared-statement names per connection for the whole application, and one name used for two
 * texts fails. JSON goes in as text (`JSON.stringify`), which PostgreSQL parses into jsonb, and
 * comes back already parsed.
 */
export class PgCallResults implements CallResultStore {
  constructor(private readonly db: PgDb) {}

  async get(key: CallKey): Promise<ToolResult | undefined> {
    const { rows } = await this.db.$client.query<{ result: ToolResult }>(
      "select result from call_results where principal = $1 and scope = $2 and call_id = $3 and tool = $4 and args_digest = $5",
      [key.principal, key.scope, key.callId, key.tool, key.argsDigest],
    );
    return rows[0]?.result;
  }

  async put(key: CallKey, result: ToolResult, durationMs: number, args?: Record<string, unknown>): Promise<boolean> {
    const now = Date.now();
    const { rowCount } = await this.db.$client.query(
      `insert into call_results (principal, scope, call_id, tool, args_digest, args, result, duration_ms, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict do nothing`,
      [
        key.principal,
        key.scope,
        key.callId,
        key.tool,
        key.argsDigest,
        args ? JSON.stringify(args) : null,
        JSON.stringify(result),
        Math.round(durationMs),
        now,
        now,
      ],
    );
    return rowCount === 1;
  }

  /**
   * Recent calls of `tool`: pinned ones first, then newest first. SQLite breaks a tie within one
   * millisecond by insertion order (rowid); PostgreSQL keeps no such order, so calls recorded in
   * the same millisecond come in the order of their call ids (descending), which at least does not
   * change between two reads.
   */
  async recent(tool: string, filter: PastCallFilter = {}): Promise<PastCall[]> {
    const where = [eq(callResults.tool, tool)];
    if (filter.principal !== undefined) where.push(eq(callResults.principal, filter.principal));
    const rows = await this.db
      .select({
        callId: callResults.callId,
        principal: callResults.principal,
        scope: callResults.scope,
        args: callResults.args,
        result: callResults.result,
        durationMs: callResults.durationMs,
        pinned: callResults.pinned,
        createdAt: callResults.createdAt,
      })
      .from(callResults)
      .where(and(...where))
      .orderBy(
        desc(callResults.pinned),
        desc(callResults.createdAt),
        desc(callResults.callId),
        desc(callResults.scope),
        desc(callResults.principal),
        desc(callResults.argsDigest),
      )
      .limit(pageSize(filter.limit, 50, 200));
    return rows.map((row) => ({ ...row, result: row.result as ToolResult }));
  }

  /**
   * Pin or unpin the calls of `tool` with this call id (of `principal` only, when given).
   * Resolves with how many records changed: 0 means there is no such call.
   */
  async setPinned(tool: string, callId: string, pinned: boolean, principal?: string): Promise<number> {
    const where = [eq(callResults.tool, tool), eq(callResults.callId, callId)];
    if (principal !== undefined) where.push(eq(callResults.principal, principal));
    const changed = await this.db
      .update(callResults)
      .set({ pinned, updatedAt: Date.now() })
      .where(and(...where))
      .returning({ callId: callResults.callId });
    return changed.length;
  }
}
