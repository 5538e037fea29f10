import { randomBytes } from "node:crypto";
import {
  ApprovalRows,
  type ApprovalEventRow,
  type ApprovalRow,
  type ApprovalRowFilter,
  type ApprovalRowStore,
  type UnkeyedCall,
} from "../db/approvals";
import type { Db } from "../db/connection";
import { ChangeListeners } from "../db/change-bus";
import type { Page } from "../db/paging";
import type { ApprovalStatus } from "../db/schema";
import type { Issue } from "../errors";
import { ToolOutcomeUnknown } from "../execution/errors";
import { failure } from "../execution/result";
import { isJsonObject, jsonDigest } from "../json/canonical";
import { ApprovalAlreadyDecided, ApprovalDecisionInvalid, ApprovalExpired, ApprovalNotFound, ApprovalNotUsable } from "./errors";
import { TRANSITIONS } from "./transitions";

export type Approval = ApprovalRow;
export type ApprovalEvent = ApprovalEventRow;
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

export type ApprovalFilter = ApprovalRowFilter;
export type ApprovalPage = Page<Approval>;

/**
 * One change of an approval: the event it went through and the approval after it. `heard` marks a
 * change another console instance made (see `heard()`), which this instance only passes on.
 */
export type ApprovalChange = { type: ApprovalEvent["type"]; approval: Approval; heard?: true };

export interface ApprovalStoreOptions {
  /** Default time to decide, in ms (24 h unless set). */
  ttlMs?: number;
  /** Checks edited arguments against the tool's input schema; "unknown" when no such tool exists. */
  validateArgs?: (tool: string, args: Record<string, unknown>) => Issue[] | "unknown";
  now?: () => number;
}

export const DEFAULT_APPROVAL_TTL_MS = 24 * 3600 * 1000;
const MAX_REASON = 2000;

/**
 * Approvals with an append-only audit trail. Every change of status follows TRANSITIONS and is one
 * guarded UPDATE (it applies only from the statuses the transition starts from) in one transaction
 * with its event, so of two concurrent decisions exactly one wins, whatever ran between a caller's
 * read and its write. Listeners hear each change after it committed.
 */
export class ApprovalStore {
  private readonly ttlMs: number;
  private readonly now: () => number;
  // A listener's failure must not undo a committed decision: it is dropped.
  private readonly listeners = new ChangeListeners<ApprovalChange>(() => {});
  private readonly rows: ApprovalRowStore;

  /** Over a SQLite database (its ApprovalRows), or over any implementation of the rows. */
  constructor(
    rows: Db | ApprovalRowStore,
    private readonly options: ApprovalStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;
    this.now = options.now ?? Date.now;
    this.rows = isRowStore(rows) ? rows : new ApprovalRows(rows);
  }

  /** Ask for a decision on a call; the same principal, scope, call, tool and arguments give the same approval. */
  async request(input: ApprovalRequest): Promise<Approval> {
    const argsDigest = input.argsDigest ?? jsonDigest(input.args);
    const key = approvalKey({ principal: input.principal, scope: input.scope, callId: input.callId, tool: input.tool, argsDigest });
    const now = this.now();
    const { row, created } = await this.rows.insertOnce(
      {
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
      },
      now,
      { type: "requested", actor: input.principal, data: { args: input.args } },
    );
    if (created) this.emit({ type: "requested", approval: row });
    return row;
  }

  get(id: string): Promise<Approval | undefined> {
    return this.rows.byId(id);
  }

  /** The approval asked for this exact call, if any. */
  findFor(principal: string, binding: CallBinding): Promise<Approval | undefined> {
    return this.rows.byKey(approvalKey({ principal, ...binding }));
  }

  /** Newest first, filtered, a page at a time. Throws InvalidCursor. */
  list(filter: ApprovalFilter = {}): Promise<ApprovalPage> {
    return this.rows.page(filter);
  }

  countPending(): Promise<number> {
    return this.rows.countPending(this.now());
  }

  /**
   * Record a person's decision. Throws ApprovalNotFound, ApprovalExpired, ApprovalAlreadyDecided
   * (a second decision), or ApprovalDecisionInvalid (edited arguments the tool's schema refuses).
   */
  async decide(id: string, decision: Decision): Promise<Approval> {
    const reason = decision.reason?.trim() || undefined;
    if (reason && reason.length > MAX_REASON) throw new ApprovalDecisionInvalid(`The reason is longer than ${MAX_REASON} characters`);
    if (!decision.decidedBy) throw new ApprovalDecisionInvalid("A decision needs the name of who decides");
    if (decision.editedArgs !== undefined) {
      if (!decision.approved) throw new ApprovalDecisionInvalid("Edited arguments go with an approval, not a denial");
      // This read only names the tool to check edited arguments against (a row's tool never changes);
      // whether the decision applies is settled by the guarded update below, not by this read.
      const current = await this.get(id);
      if (!current) throw new ApprovalNotFound(id);
      if (!isJsonObject(decision.editedArgs))
        throw new ApprovalDecisionInvalid("Edited arguments must be a JSON object", [{ path: "", message: "must be an object" }]);
      const issues = this.options.validateArgs?.(current.tool, decision.editedArgs) ?? [];
      if (issues === "unknown")
        throw new ApprovalDecisionInvalid(`The tool ${current.tool} is no longer registered; its arguments cannot be checked`);
      if (issues.length) throw new ApprovalDecisionInvalid(`The edited arguments do not match ${current.tool}'s schema`, issues);
    }
    const now = this.now();
    const outcome = await this.apply(id, "decide", decision.decidedBy, {
      notExpired: now,
      set: {
        status: decision.approved ? "approved" : "denied",
        decidedBy: decision.decidedBy,
        decidedAt: now,
        reason: reason ?? null,
        editedArgs: decision.editedArgs ?? null,
      },
      data: { approved: decision.approved, ...(reason && { reason }), ...(decision.editedArgs && { editedArgs: decision.editedArgs }) },
    });
    if (outcome.changed) return outcome.row;
    if (outcome.row.status === "pending") {
      await this.expireDue();
      throw new ApprovalExpired(id);
    }
    if (outcome.row.status === "expired") throw new ApprovalExpired(id);
    throw new ApprovalAlreadyDecided(id, outcome.row.status);
  }

  /** Withdraw an approval nobody used yet (pending or approved). Throws ApprovalNotFound or ApprovalAlreadyDecided. */
  async cancel(id: string, by: string, reason?: string): Promise<Approval> {
    const outcome = await this.apply(id, "cancel", by, {
      set: { status: "cancelled", reason: reason ?? null },
      data: reason ? { reason } : undefined,
    });
    if (outcome.changed) return outcome.row;
    throw new ApprovalAlreadyDecided(id, outcome.row.status);
  }

  /**
   * Use an approved approval for the call it was asked for, once. Throws ApprovalNotUsable when it
   * is not approved, was used already, or is bound to another call.
   */
  async consume(id: string, binding: CallBinding, by = "executor"): Promise<Approval> {
    const outcome = await this.apply(id, "consume", by, { match: binding, set: { status: "consumed", consumedAt: this.now() } });
    if (outcome.changed) return outcome.row;
    const current = outcome.row;
    const bound =
      current.scope === binding.scope &&
      current.callId === binding.callId &&
      current.tool === binding.tool &&
      current.argsDigest === binding.argsDigest;
    throw new ApprovalNotUsable(
      id,
      !bound ? "it was asked for another call" : current.status === "consumed" ? "it was used already" : `it is ${current.status}`,
    );
  }

  /** Keep the outcome of the call an approval allowed. */
  async recordOutcome(id: string, result: unknown): Promise<void> {
    const approval = await this.rows.recordOutcome(id, isJsonObject(result) ? result : { value: result }, this.now());
    if (approval) this.emit({ type: "ran", approval });
  }

  /**
   * Approvals asked in a thread whose outcome has not yet reached that conversation, oldest
   * first: the thread's open interrupts.
   */
  unansweredForThread(threadId: string, surface = "agui"): Promise<Approval[]> {
    return this.rows.unansweredForThread(threadId, surface);
  }

  /**
   * The approval asked for this call of `principal`'s, made without a call key, whose outcome has
   * not reached the caller yet: pending, approved, or decided and not yet answered. Only approvals
   * asked within the time to decide count, so a call made again a day later asks again.
   */
  unansweredForCall(principal: string, call: UnkeyedCall): Promise<Approval | undefined> {
    return this.rows.unansweredForCall(principal, call, this.now() - this.ttlMs);
  }

  /** Note that the outcome of this approval reached its conversation (once; later calls change nothing). */
  async markAnswered(id: string, runId: string, by: string): Promise<void> {
    const changed = await this.rows.markAnswered(id, runId, by, this.now());
    if (changed) this.emit({ type: "answered", approval: changed });
  }

  /**
   * At start-up: give every approval whose call was cut off by a stop (consumed, no outcome) the
   * outcome the call record has, or "outcome unknown". Such a call is then answered from this,
   * never as denied and never run again. Returns the approvals changed. Call it before anything
   * runs: in a live process a consumed approval without an outcome may belong to a running call.
   */
  async settleInterrupted(): Promise<Approval[]> {
    const settled = await this.rows.settleInterrupted(
      this.now(),
      (row) => failure(new ToolOutcomeUnknown(row.tool)) as Record<string, unknown>,
    );
    for (const approval of settled) this.emit({ type: "ran", approval });
    return settled;
  }

  /** Expire every pending approval past its time; returns those it expired. */
  async expireDue(): Promise<Approval[]> {
    const expired = await this.rows.expireDue(this.now(), TRANSITIONS.expire.from);
    for (const approval of expired) this.emit({ type: "expired", approval });
    return expired;
  }

  /** The audit trail of one approval, oldest first. */
  events(id: string): Promise<ApprovalEvent[]> {
    return this.rows.events(id);
  }

  /**
   * Another console instance changed approval `id` (its change bus said so): tell this instance's
   * listeners, with the approval as it is now and its latest event. Several changes heard in a row
   * may each show the latest state; listeners treat a change as "this approval is now so".
   */
  async heard(id: string): Promise<void> {
    const approval = await this.rows.byId(id);
    if (!approval) return;
    const events = await this.rows.events(id);
    const type = events.at(-1)?.type ?? "requested";
    this.emit({ type, approval, heard: true });
  }

  /** Called after every change an approval goes through. Returns an unsubscribe function. */
  onChange(listener: (change: ApprovalChange) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Run one transition of TRANSITIONS. Throws ApprovalNotFound; a refused transition returns the row as it is. */
  private async apply(
    id: string,
    transition: keyof typeof TRANSITIONS,
    actor: string,
    step: { set: Partial<Approval>; notExpired?: number; match?: CallBinding; data?: Record<string, unknown> },
  ): Promise<{ changed: boolean; row: Approval }> {
    const { from, to, event } = TRANSITIONS[transition];
    // The table is the rule: a transition never writes a status it does not lead to.
    if (!(to as readonly string[]).includes(step.set.status ?? "")) throw new Error(`${transition} cannot lead to ${step.set.status}`);
    const outcome = await this.rows.change(
      id,
      { from, notExpired: step.notExpired, match: step.match, set: step.set },
      { type: event, actor, data: step.data },
      this.now(),
    );
    if (!outcome.row) throw new ApprovalNotFound(id);
    if (outcome.changed) this.emit({ type: event, approval: outcome.row });
    return { changed: outcome.changed, row: outcome.row };
  }

  private emit(change: ApprovalChange): void {
    this.listeners.emit(change);
  }
}

function isRowStore(value: Db | ApprovalRowStore): value is ApprovalRowStore {
  return typeof (value as Partial<ApprovalRowStore>).insertOnce === "function";
}

/** The idempotency key of an approval request. */
export function approvalKey(input: { principal: string } & CallBinding): string {
  return jsonDigest([input.principal, input.scope, input.callId, input.tool, input.argsDigest]);
}
