import { randomBytes } from "node:crypto";
import { and, asc, desc, eq, isNull, like, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { decodeCursor, encodeCursor } from "../db/cursor";
import { approvalEvents, approvals, type ApprovalStatus } from "../db/schema";
import { isJsonObject, jsonDigest } from "../json/canonical";
import type { SchemaIssue } from "../tools/schema";
import { ApprovalAlreadyDecided, ApprovalDecisionInvalid, ApprovalExpired, ApprovalNotFound, ApprovalNotUsable } from "./errors";

export type Approval = typeof approvals.$inferSelect;
export type ApprovalEvent = typeof approvalEvents.$inferSelect;
export type { ApprovalStatus };

export const APPROVAL_STATUSES: ApprovalStatus[] = ["pending", "approved", "denied", "expired", "cancelled", "consumed"];

export interface ApprovalRequest {
  principal: string;
  scope: string;
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  argsDigest?: string;
  runId?: string;
  threadId?: string;
  surface: string;
  /** The question shown to a person. */
  message?: string;
  /** Overrides the store's default time to decide. */
  ttlMs?: number;
}

export interface Decision {
  approved: boolean;
  reason?: string;
  /** Replaces the arguments (whole, not merged); only with approved. */
  editedArgs?: Record<string, unknown>;
  /** Who decides: recorded on the approval and in its audit trail. */
  decidedBy: string;
}

/** The call an approval is bound to; consuming it for any other call fails. */
export interface CallBinding {
  scope: string;
  callId: string;
  tool: string;
  argsDigest: string;
}

export interface ApprovalFilter {
  status?: ApprovalStatus | ApprovalStatus[];
  tool?: string;
  threadId?: string;
  runId?: string;
  principal?: string;
  surface?: string;
  /** Words matched against the tool name and the arguments. */
  text?: string;
  cursor?: string;
  limit?: number;
}

export interface ApprovalPage {
  items: Approval[];
  nextCursor?: string;
}

export type ApprovalChange = { type: ApprovalEvent["type"]; approval: Approval };

export interface ApprovalStoreOptions {
  /** Default time to decide, in ms (24 h unless set). */
  ttlMs?: number;
  /** Checks edited arguments against the tool's input schema; "unknown" when no such tool exists. */
  validateArgs?: (tool: string, args: Record<string, unknown>) => SchemaIssue[] | "unknown";
  now?: () => number;
}

export const DEFAULT_APPROVAL_TTL_MS = 24 * 3600 * 1000;
const MAX_REASON = 2000;

/**
 * Approvals in SQLite, with an append-only audit trail. Every change of status is one guarded
 * UPDATE inside an immediate transaction, so of two concurrent decisions exactly one wins.
 */
export class ApprovalStore {
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly listeners = new Set<(change: ApprovalChange) => void>();
  private readonly statements: ReturnType<typeof prepareStatements>;
  private readonly updates = new Map<string, ReturnType<typeof prepareUpdate>>();

  constructor(
    private readonly db: Db,
    private readonly options: ApprovalStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;
    this.now = options.now ?? Date.now;
    this.statements = prepareStatements(db);
  }

  /** Ask for a decision on a call; the same principal, scope, call, tool and arguments give the same approval. */
  request(input: ApprovalRequest): Approval {
    const argsDigest = input.argsDigest ?? jsonDigest(input.args);
    const key = approvalKey({ principal: input.principal, scope: input.scope, callId: input.callId, tool: input.tool, argsDigest });
    const { approval, created } = this.db.transaction(
      () => {
        // Prepared statements run on the same connection, so inside this transaction.
        const existing = this.statements.byKey.get({ key });
        if (existing) return { approval: existing, created: false };
        const now = this.now();
        const row = this.statements.insert.get({
          id: `apr_${randomBytes(12).toString("base64url")}`,
          key,
          principal: input.principal,
          scope: input.scope,
          callId: input.callId,
          runId: input.runId ?? null,
          threadId: input.threadId ?? null,
          surface: input.surface,
          tool: input.tool,
          args: input.args,
          argsDigest,
          message: input.message ?? null,
          expiresAt: now + (input.ttlMs ?? this.ttlMs),
          now,
        })!;
        this.statements.eventWithData.run({ approvalId: row.id, type: "requested", actor: input.principal, data: { args: input.args }, now });
        return { approval: row, created: true };
      },
      { behavior: "immediate" },
    );
    if (created) this.emit({ type: "requested", approval });
    return approval;
  }

  get(id: string): Approval | undefined {
    return this.statements.byId.get({ id });
  }

  /** The approval asked for this exact call, if any. */
  findFor(principal: string, binding: CallBinding): Approval | undefined {
    return this.statements.byKey.get({ key: approvalKey({ principal, ...binding }) });
  }

  /** Newest first, filtered, a page at a time. */
  list(filter: ApprovalFilter = {}): ApprovalPage {
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 500);
    const where: SQL[] = [];
    const statuses = filter.status === undefined ? [] : Array.isArray(filter.status) ? filter.status : [filter.status];
    if (statuses.length) where.push(sql`${approvals.status} in ${statuses}`);
    if (filter.tool) where.push(eq(approvals.tool, filter.tool));
    if (filter.threadId) where.push(eq(approvals.threadId, filter.threadId));
    if (filter.runId) where.push(eq(approvals.runId, filter.runId));
    if (filter.principal) where.push(eq(approvals.principal, filter.principal));
    if (filter.surface) where.push(eq(approvals.surface, filter.surface));
    for (const word of (filter.text ?? "").toLowerCase().split(/\s+/).filter(Boolean).slice(0, 8)) {
      const pattern = `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(or(sql`lower(${approvals.tool}) like ${pattern} escape '\\'`, sql`lower(${approvals.args}) like ${pattern} escape '\\'`, like(approvals.principal, pattern))!);
    }
    if (filter.cursor) {
      const [createdAt, id] = decodeCursor(filter.cursor, ["number", "string"]);
      where.push(or(lt(approvals.createdAt, createdAt), and(eq(approvals.createdAt, createdAt), lt(approvals.id, id)))!);
    }
    const rows = this.db
      .select()
      .from(approvals)
      .where(and(...where))
      .orderBy(desc(approvals.createdAt), desc(approvals.id))
      .limit(limit + 1)
      .all();
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return rows.length > limit && last ? { items, nextCursor: encodeCursor([last.createdAt, last.id]) } : { items };
  }

  countPending(): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(approvals).where(and(eq(approvals.status, "pending"), sql`${approvals.expiresAt} > ${this.now()}`)).get()?.n ?? 0;
  }

  /**
   * Record a person's decision. Throws ApprovalNotFound, ApprovalExpired, ApprovalAlreadyDecided
   * (a second decision), or ApprovalDecisionInvalid (edited arguments the tool's schema refuses).
   */
  decide(id: string, decision: Decision): Approval {
    const reason = decision.reason?.trim() || undefined;
    if (reason && reason.length > MAX_REASON) throw new ApprovalDecisionInvalid(`The reason is longer than ${MAX_REASON} characters`);
    if (!decision.decidedBy) throw new ApprovalDecisionInvalid("A decision needs the name of who decides");
    const current = this.get(id);
    if (!current) throw new ApprovalNotFound(id);
    if (decision.editedArgs !== undefined) {
      if (!decision.approved) throw new ApprovalDecisionInvalid("Edited arguments go with an approval, not a denial");
      if (!isJsonObject(decision.editedArgs)) throw new ApprovalDecisionInvalid("Edited arguments must be a JSON object", [{ path: "", message: "must be an object" }]);
      const issues = this.options.validateArgs?.(current.tool, decision.editedArgs) ?? [];
      if (issues === "unknown") throw new ApprovalDecisionInvalid(`The tool ${current.tool} is no longer registered; its arguments cannot be checked`);
      if (issues.length) throw new ApprovalDecisionInvalid(`The edited arguments do not match ${current.tool}'s schema`, issues);
    }
    const status: ApprovalStatus = decision.approved ? "approved" : "denied";
    const outcome = this.transition(id, "decided", decision.decidedBy, (now) => ({
      from: ["pending"],
      notExpired: now,
      set: { status, decidedBy: decision.decidedBy, decidedAt: now, reason: reason ?? null, editedArgs: decision.editedArgs ?? null },
      data: { approved: decision.approved, ...(reason && { reason }), ...(decision.editedArgs && { editedArgs: decision.editedArgs }) },
    }));
    if (outcome.ok) return outcome.approval;
    if (outcome.current.status === "pending") {
      this.expireDue();
      throw new ApprovalExpired(id);
    }
    if (outcome.current.status === "expired") throw new ApprovalExpired(id);
    throw new ApprovalAlreadyDecided(id, outcome.current.status);
  }

  /** Withdraw an approval nobody used yet (pending or approved). Throws ApprovalNotFound or ApprovalAlreadyDecided. */
  cancel(id: string, by: string, reason?: string): Approval {
    const outcome = this.transition(id, "cancelled", by, () => ({
      from: ["pending", "approved"],
      set: { status: "cancelled", reason: reason ?? null },
      data: reason ? { reason } : undefined,
    }));
    if (outcome.ok) return outcome.approval;
    throw new ApprovalAlreadyDecided(id, outcome.current.status);
  }

  /**
   * Use an approved approval for the call it was asked for, once. Throws ApprovalNotUsable when it
   * is not approved, was used already, or is bound to another call.
   */
  consume(id: string, binding: CallBinding, by = "executor"): Approval {
    const outcome = this.transition(id, "consumed", by, (now) => ({
      from: ["approved"],
      match: binding,
      set: { status: "consumed", consumedAt: now },
    }));
    if (outcome.ok) return outcome.approval;
    const current = outcome.current;
    const bound = current.scope === binding.scope && current.callId === binding.callId && current.tool === binding.tool && current.argsDigest === binding.argsDigest;
    throw new ApprovalNotUsable(id, !bound ? "it was asked for another call" : current.status === "consumed" ? "it was used already" : `it is ${current.status}`);
  }

  /** Keep the outcome of the call an approval allowed. */
  recordOutcome(id: string, result: unknown): void {
    const now = this.now();
    const value = isJsonObject(result) ? result : { value: result };
    this.db.transaction((tx) => {
      tx.update(approvals).set({ result: value, ranAt: now, updatedAt: now }).where(eq(approvals.id, id)).run();
      tx.insert(approvalEvents).values({ approvalId: id, type: "ran", actor: "executor", data: value, createdAt: now, updatedAt: now }).run();
    });
    const approval = this.get(id);
    if (approval) this.emit({ type: "ran", approval });
  }

  /**
   * Approvals asked in a thread whose outcome has not yet reached that conversation, oldest
   * first: the thread's open interrupts.
   */
  unansweredForThread(threadId: string, surface = "agui"): Approval[] {
    return this.db
      .select()
      .from(approvals)
      .where(and(eq(approvals.threadId, threadId), eq(approvals.surface, surface), isNull(approvals.answeredAt)))
      .orderBy(asc(approvals.createdAt), asc(approvals.id))
      .all();
  }

  /** Note that the outcome of this approval reached its conversation (once; later calls change nothing). */
  markAnswered(id: string, runId: string, by: string): void {
    const now = this.now();
    const changed = this.db.transaction((tx) => {
      const row = tx
        .update(approvals)
        .set({ answeredAt: now, answeredRunId: runId, updatedAt: now })
        .where(and(eq(approvals.id, id), isNull(approvals.answeredAt)))
        .returning()
        .get();
      if (row) tx.insert(approvalEvents).values({ approvalId: id, type: "answered", actor: by, data: { runId }, createdAt: now, updatedAt: now }).run();
      return row;
    });
    if (changed) this.emit({ type: "answered", approval: changed });
  }

  /** Expire every pending approval past its time; returns those it expired. */
  expireDue(): Approval[] {
    const now = this.now();
    const expired = this.db.transaction(
      (tx) => {
        const rows = tx
          .update(approvals)
          .set({ status: "expired", updatedAt: now })
          .where(and(eq(approvals.status, "pending"), lte(approvals.expiresAt, now)))
          .returning()
          .all();
        if (rows.length) tx.insert(approvalEvents).values(rows.map((row) => ({ approvalId: row.id, type: "expired" as const, actor: "system", createdAt: now, updatedAt: now }))).run();
        return rows;
      },
      { behavior: "immediate" },
    );
    for (const approval of expired) this.emit({ type: "expired", approval });
    return expired;
  }

  /** The audit trail of one approval, oldest first. */
  events(id: string): ApprovalEvent[] {
    return this.db.select().from(approvalEvents).where(eq(approvalEvents.approvalId, id)).orderBy(asc(approvalEvents.id)).all();
  }

  /** Called after every change an approval goes through. Returns an unsubscribe function. */
  onChange(listener: (change: ApprovalChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private transition(
    id: string,
    type: ApprovalEvent["type"],
    actor: string,
    plan: (now: number) => {
      from: ApprovalStatus[];
      notExpired?: number;
      match?: CallBinding;
      set: Partial<Approval>;
      data?: Record<string, unknown>;
    },
  ): { ok: true; approval: Approval } | { ok: false; current: Approval } {
    const now = this.now();
    const step = plan(now);
    // Null values are left out of the update: a JSON column would store a placeholder's null as 'null'.
    const set = Object.fromEntries(Object.entries(step.set).filter(([, value]) => value !== undefined && value !== null));
    const cleared = Object.keys(step.set).filter((column) => step.set[column as keyof Approval] === null);
    const shape = JSON.stringify([step.from, step.notExpired !== undefined, step.match !== undefined, Object.keys(set), cleared]);
    let update = this.updates.get(shape);
    if (!update) {
      update = prepareUpdate(this.db, step.from, Object.keys(set), cleared, step.notExpired !== undefined, step.match !== undefined);
      this.updates.set(shape, update);
    }
    const statement = update;
    const result = this.db.transaction(
      () => {
        const row = statement.get({ ...prefixed(set), id, now, notExpired: step.notExpired ?? 0, ...(step.match && prefixed(step.match, "match_")) });
        if (!row) return { ok: false as const, current: this.statements.byId.get({ id }) };
        if (step.data) this.statements.eventWithData.run({ approvalId: id, type, actor, data: step.data, now });
        else this.statements.event.run({ approvalId: id, type, actor, now });
        return { ok: true as const, approval: row };
      },
      { behavior: "immediate" },
    );
    if (!result.ok && !result.current) throw new ApprovalNotFound(id);
    if (result.ok) this.emit({ type, approval: result.approval });
    return result as { ok: true; approval: Approval } | { ok: false; current: Approval };
  }

  private emit(change: ApprovalChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A listener's failure must not undo a committed decision.
      }
    }
  }
}

const placeholder = (name: string) => sql.placeholder(name);

/** The store's frequent queries, built and compiled once: building them per call cost most of a decision. */
function prepareStatements(db: Db) {
  const eventValues = { approvalId: placeholder("approvalId"), type: placeholder("type"), actor: placeholder("actor"), createdAt: placeholder("now"), updatedAt: placeholder("now") };
  return {
    byId: db.select().from(approvals).where(eq(approvals.id, placeholder("id"))).prepare(),
    byKey: db.select().from(approvals).where(eq(approvals.key, placeholder("key"))).prepare(),
    insert: db
      .insert(approvals)
      .values({
        id: placeholder("id"),
        key: placeholder("key"),
        principal: placeholder("principal"),
        scope: placeholder("scope"),
        callId: placeholder("callId"),
        runId: placeholder("runId"),
        threadId: placeholder("threadId"),
        surface: placeholder("surface"),
        tool: placeholder("tool"),
        args: placeholder("args"),
        argsDigest: placeholder("argsDigest"),
        message: placeholder("message"),
        status: "pending",
        expiresAt: placeholder("expiresAt"),
        createdAt: placeholder("now"),
        updatedAt: placeholder("now"),
      })
      .returning()
      .prepare(),
    event: db.insert(approvalEvents).values(eventValues).prepare(),
    eventWithData: db
      .insert(approvalEvents)
      .values({ ...eventValues, data: placeholder("data") })
      .prepare(),
  };
}

/** One guarded status change, compiled for a shape of transition (which columns it sets and what it checks). */
function prepareUpdate(db: Db, from: ApprovalStatus[], columns: string[], cleared: string[], checksExpiry: boolean, checksBinding: boolean) {
  const guards: SQL[] = [eq(approvals.id, placeholder("id")), sql`${approvals.status} in ${from}`];
  if (checksExpiry) guards.push(sql`${approvals.expiresAt} > ${placeholder("notExpired")}`);
  if (checksBinding)
    guards.push(
      eq(approvals.scope, placeholder("match_scope")),
      eq(approvals.callId, placeholder("match_callId")),
      eq(approvals.tool, placeholder("match_tool")),
      eq(approvals.argsDigest, placeholder("match_argsDigest")),
    );
  const set: Record<string, unknown> = { updatedAt: placeholder("now") };
  for (const column of columns) set[column] = placeholder(`set_${column}`);
  for (const column of cleared) set[column] = null;
  return db
    .update(approvals)
    .set(set as Partial<Approval>)
    .where(and(...guards))
    .returning()
    .prepare();
}

function prefixed(values: object, prefix = "set_"): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [`${prefix}${key}`, value]));
}

/** The idempotency key of an approval request. */
export function approvalKey(input: { principal: string } & CallBinding): string {
  return jsonDigest([input.principal, input.scope, input.callId, input.tool, input.argsDigest]);
}
