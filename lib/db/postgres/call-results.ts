import { and, desc, eq } from "drizzle-orm";
import type { CallKey } from "../../execution/call-record";
import type { ToolResult } from "../../execution/result";
import type { CallResultStore, PastCall, PastCallFilter } from "../call-results";
import { pageSize } from "../paging";
import { callResults } from "../schema.pg";
import type { PgDb } from "./open";
import { prepared } from "./prepared";

/**
 * The call record and each tool's call history on PostgreSQL, the twin of the SQLite CallResults.
 *
 * The first record of a call wins across every instance sharing the database: `put` is an
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
 * The gets (and the puts) made in one turn of the event loop, such as a run's parallel tool calls or
 * many runs at once, go as one statement over arrays of keys: a put still resolves only after its
 * row is committed, and only the one row written answers true. They are plain parameterised
 * queries on the pool, without names: node-postgres keeps prepared-statement names per connection
 * for the whole application, and one name used for two texts fails. JSON goes in as text (`JSON.stringify`), which PostgreSQL parses into jsonb, and
 * comes back already parsed.
 */
export class PgCallResults implements CallResultStore {
  private readonly gets = new Batch<CallKey, ToolResult | undefined>((keys) => this.getMany(keys));
  private readonly puts = new Batch<Put, boolean>((records) => this.putMany(records));

  constructor(private readonly db: PgDb) {}

  get(key: CallKey): Promise<ToolResult | undefined> {
    return this.gets.add(key);
  }

  put(key: CallKey, result: ToolResult, durationMs: number, args?: Record<string, unknown>): Promise<boolean> {
    return this.puts.add({ key, result, durationMs, args });
  }

  /** The recorded results of `keys`, in their order: one statement for the reads of one turn of the event loop. */
  private async getMany(keys: CallKey[]): Promise<Array<ToolResult | undefined>> {
    const { rows } = await this.db.$client.query<{ i: number; result: ToolResult }>(prepared(GET_MANY, keyColumns(keys)));
    const results: Array<ToolResult | undefined> = keys.map(() => undefined);
    for (const row of rows) results[row.i - 1] = row.result;
    return results;
  }

  /**
   * Record `records` in one INSERT … ON CONFLICT DO NOTHING, resolved once it is committed: each
   * one is true when its row is the one written. A key given twice in one batch is written once,
   * the later ones hearing false as they would a moment later.
   */
  private async putMany(records: Put[]): Promise<boolean[]> {
    const first = new Map<string, number>();
    records.forEach((record, i) => {
      const text = keyText(record.key);
      if (!first.has(text)) first.set(text, i);
    });
    const written = [...first.values()].map((i) => records[i]!);
    const now = Date.now();
    const { rows } = await this.db.$client.query<{ principal: string; scope: string; call_id: string; tool: string; args_digest: string }>(
      prepared(PUT_MANY, [
        ...keyColumns(written.map((record) => record.key)),
        written.map((record) => (record.args ? JSON.stringify(record.args) : null)),
        written.map((record) => JSON.stringify(record.result)),
        written.map((record) => Math.round(record.durationMs)),
        now,
      ]),
    );
    const kept = new Set(rows.map((row) => keyText({ ...row, callId: row.call_id, argsDigest: row.args_digest })));
    return records.map((record, i) => first.get(keyText(record.key)) === i && kept.has(keyText(record.key)));
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

interface Put {
  key: CallKey;
  result: ToolResult;
  durationMs: number;
  args?: Record<string, unknown>;
}

/** The five key columns of `keys` as the arrays $1 to $5. */
function keyColumns(keys: CallKey[]): string[][] {
  return [
    keys.map((key) => key.principal),
    keys.map((key) => key.scope),
    keys.map((key) => key.callId),
    keys.map((key) => key.tool),
    keys.map((key) => key.argsDigest),
  ];
}

/** A call key as one string, unambiguous whatever its parts hold (a client chooses some of them). */
function keyText(key: CallKey): string {
  return JSON.stringify([key.principal, key.scope, key.callId, key.tool, key.argsDigest]);
}

/**
 * Requests made in one turn of the event loop, sent as one statement: `run` answers each item in
 * order, or rejects, which rejects every request of the batch.
 */
class Batch<T, R> {
  private waiting: Array<{ item: T; resolve: (value: R) => void; reject: (error: unknown) => void }> = [];

  constructor(private readonly run: (items: T[]) => Promise<R[]>) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.waiting.push({ item, resolve, reject }) === 1) setImmediate(() => void this.send());
    });
  }

  private async send(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      const results = await this.run(batch.map((entry) => entry.item));
      batch.forEach((entry, i) => entry.resolve(results[i]!));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}

/** The recorded results of keys given as five arrays ($1 principals … $5 argument digests), with each key's position. */
const GET_MANY = `select k.i::int as i, c.result from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) with ordinality
    as k(principal, scope, call_id, tool, args_digest, i)
  join call_results c on c.principal = k.principal and c.scope = k.scope and c.call_id = k.call_id
    and c.tool = k.tool and c.args_digest = k.args_digest`;

/** Calls given as arrays ($1-$5 their keys, $6 arguments, $7 results, $8 durations; $9 now), each written unless its key is there. */
const PUT_MANY = `insert into call_results (principal, scope, call_id, tool, args_digest, args, result, duration_ms, created_at, updated_at)
  select r.principal, r.scope, r.call_id, r.tool, r.args_digest, r.args, r.result, r.duration_ms, $9::bigint, $9::bigint
    from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[], $8::bigint[])
      as r(principal, scope, call_id, tool, args_digest, args, result, duration_ms)
  on conflict do nothing
  returning principal, scope, call_id, tool, args_digest`;
