import { randomBytes } from "node:crypto";
import type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import type { CallToolResult, Result, Task } from "@modelcontextprotocol/sdk/types.js";
import type { ApprovalStore } from "../../approvals/store";
import { McpTaskRows, type McpTaskRow, type McpTaskRowStore } from "../../db/mcp-tasks";
import type { Db } from "../../db/connection";
import { DomainError, isDomainError } from "../../errors";
import type { Executor } from "../../execution/executor";
import { isPending, type CallOutcome } from "../../execution/result";
import type { Logger } from "../../log";
import { ERROR_KIND_META, toCallToolResult } from "./server-results";

/** How often creating a task also deletes the expired ones. */
const SWEEP_EVERY_MS = 60 * 1000;

/** The call a task stands for: its executor key, with the principal of the task. */

export interface TaskCall {
  tool: string;
  args: Record<string, unknown>;
  scope: string;
  callId: string;
  runId: string;
}

export interface McpTaskOptions {
  /** How often clients are told to poll (and how often tasks/result looks again). */
  pollIntervalMs?: number;
  /** A task's life when the client asks for none; a longer ask is cut to `maxTtlMs`. */
  defaultTtlMs?: number;
  maxTtlMs?: number;
  /** Unexpired tasks one principal may hold; past it, task-augmented calls are refused. */
  maxPerPrincipal?: number;
  /** How long a process owns a task it runs; a task still working after that is taken over. */
  leaseMs?: number;
  now?: () => number;
}

const HOUR = 3600 * 1000;

/**
 * MCP tasks over the mcp_tasks table. A task is created for a call that already has an outcome:
 * ended (completed, or failed for an `isError` result) or waiting for a person (input_required, with
 * its approval). A waiting task moves on when the operator decides: at once in this process (the
 * approval store's change), and in any process when a client reads the task. Moving on runs the
 * call again through the executor under its own key, so an approved call runs exactly once and a
 * denied one is answered as denied.
 */
export class McpTasks {
  private readonly rows: McpTaskRowStore;
  private readonly pollIntervalMs: number;
  private readonly defaultTtlMs: number;
  private readonly maxTtlMs: number;
  private readonly maxPerPrincipal: number;
  private readonly leaseMs: number;
  private readonly now: () => number;
  /** When expired rows were last deleted: reads skip them anyway, so once a minute is enough. */
  private sweptAt = 0;

  /** Over a SQLite database (its McpTaskRows), or over any implementation of the rows. */
  constructor(
    rows: Db | McpTaskRowStore,
    private readonly executor: Executor,
    private readonly approvals: ApprovalStore,
    private readonly logger: Logger,
    options: McpTaskOptions = {},
  ) {
    this.rows = isRowStore(rows) ? rows : new McpTaskRows(rows);
    this.pollIntervalMs = options.pollIntervalMs ?? 2000;
    this.defaultTtlMs = options.defaultTtlMs ?? 24 * HOUR;
    this.maxTtlMs = options.maxTtlMs ?? 7 * 24 * HOUR;
    this.maxPerPrincipal = options.maxPerPrincipal ?? 1000;
    this.leaseMs = options.leaseMs ?? 10 * 60 * 1000;
    this.now = options.now ?? Date.now;
    approvals.onChange(({ type, approval }) => {
      if (type !== "decided" && type !== "expired" && type !== "cancelled") return;
      this.rows
        .waitingFor(approval.id, this.now())
        .then((rows) => Promise.all(rows.map((row) => this.settle(row))))
        .catch((error: unknown) => this.logger.error("could not move on the MCP tasks of an approval", { approvalId: approval.id, error }));
    });
  }

  /**
   * A task for a call and its outcome so far. `ttlMs` is the client's ask. Rejects with DomainError
   * (forbidden) when the principal already holds as many tasks as it may.
   */
  async create(principal: string, call: TaskCall, outcome: CallOutcome, ttlMs?: number): Promise<Task> {
    const now = this.now();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = now;
      await this.rows.deleteExpired(now);
    }
    const ttl = Math.min(Math.max(ttlMs ?? this.defaultTtlMs, 1000), this.maxTtlMs);
    const row = await this.rows.insert(
      {
        id: `mcpt_${randomBytes(12).toString("base64url")}`,
        principal,
        ...call,
        ttlMs: ttl,
        pollIntervalMs: this.pollIntervalMs,
        expiresAt: now + ttl,
        ...this.stateOf(call.tool, outcome),
      },
      this.maxPerPrincipal,
      now,
    );
    if (!row) throw new DomainError("forbidden", `This caller holds ${this.maxPerPrincipal} tasks already; let some expire first`);
    return toTask(row);
  }

  /** The principal's task, moved on first when its approval was decided; null when unknown or expired. */
  async get(principal: string, id: string): Promise<Task | null> {
    const row = await this.rows.get(principal, id, this.now());
    return row ? toTask(await this.settle(row)) : null;
  }

  /** The result of an ended task. Throws DomainError (call_not_found) for an unknown task or one that has not ended. */
  async result(principal: string, id: string): Promise<CallToolResult> {
    const row = await this.rows.get(principal, id, this.now());
    if (!row?.result) throw new DomainError("call_not_found", `Task ${id} has no result`);
    return row.result as CallToolResult;
  }

  /** The principal's tasks, newest first. Throws InvalidCursor. */
  async list(principal: string, cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const page = await this.rows.page(principal, cursor, 100, this.now());
    const tasks = await Promise.all(page.items.map(async (row) => toTask(await this.settle(row))));
    return { tasks, ...(page.nextCursor && { nextCursor: page.nextCursor }) };
  }

  /** Cancel a task that has not ended, withdrawing the approval it waits for. Unknown or ended tasks change nothing. */
  async cancel(principal: string, id: string, message = "The client cancelled the task."): Promise<void> {
    const row = await this.rows.get(principal, id, this.now());
    if (!row) return;
    const result: CallToolResult = {
      content: [{ type: "text", text: JSON.stringify({ error: { kind: "cancelled", message } }) }],
      isError: true,
      _meta: { [ERROR_KIND_META]: "cancelled" },
    };
    const changed = await this.rows.update(id, { status: "cancelled", statusMessage: message, result }, this.now());
    if (changed && row.approvalId) {
      try {
        await this.approvals.cancel(row.approvalId, principal, "the MCP client cancelled its task");
      } catch (error) {
        // Decided or used in the meantime: nothing is waiting on it any more.
        if (!isDomainError(error)) throw error;
      }
      // The task holds its end: a later call without a key asks anew (chooseCallId in ./server.ts).
      await this.approvals.markAnswered(row.approvalId, row.runId, principal);
    }
  }

  /** The SDK's task store for one caller's requests: every lookup is bound to `principal`. */
  storeFor(principal: string): TaskStore {
    return {
      createTask: async () => {
        throw new Error("MCP tasks are created by the tools/call handler");
      },
      storeTaskResult: async () => {
        throw new Error("MCP task results are stored when their call ends");
      },
      getTask: (taskId) => this.get(principal, taskId),
      getTaskResult: async (taskId): Promise<Result> => this.result(principal, taskId),
      updateTaskStatus: async (taskId, status, statusMessage) => {
        // The only change a client can ask for is tasks/cancel.
        if (status === "cancelled") await this.cancel(principal, taskId, statusMessage);
      },
      listTasks: (cursor) => this.list(principal, cursor),
    };
  }

  /**
   * Move a waiting task on when its approval was decided (or a running one whose process stopped):
   * claim it, run the call again under its key, and store the outcome. Returns the row as it is now.
   */
  private async settle(row: McpTaskRow): Promise<McpTaskRow> {
    const now = this.now();
    const waiting = row.status === "input_required";
    const abandoned = row.status === "working" && (row.leaseUntil ?? 0) < now;
    if (!waiting && !abandoned) return row;
    const approval = row.approvalId ? await this.approvals.get(row.approvalId) : undefined;
    if (waiting && approval?.status === "pending" && approval.expiresAt > now) return row;
    const claimed = await this.rows.claim(row.id, now + this.leaseMs, now);
    if (!claimed) return (await this.rows.get(row.principal, row.id, now)) ?? row;
    try {
      const outcome = await this.executor.call(row.tool, row.args, {
        callId: row.callId,
        ctx: { principal: row.principal, scope: row.scope, runId: row.runId, surface: "mcp" },
      });
      const updated = (await this.rows.update(row.id, this.stateOf(row.tool, outcome), this.now())) ?? claimed;
      // The task holds the call's outcome: its approval is answered, and a later call without a key asks anew.
      if (row.approvalId && !isPending(outcome)) await this.approvals.markAnswered(row.approvalId, row.runId, row.principal);
      return updated;
    } catch (error) {
      // Only a programming or storage error lands here; the task waits to be taken over.
      this.logger.error("could not move an MCP task on", { taskId: row.id, error });
      return claimed;
    }
  }

  /** The status, message, result and approval a task has for an outcome. */
  private stateOf(tool: string, outcome: CallOutcome) {
    if (isPending(outcome))
      return {
        status: "input_required" as const,
        statusMessage: `Waiting for a person to decide approval ${outcome.pending.approvalId}`,
        approvalId: outcome.pending.approvalId,
      };
    const result = toCallToolResult(outcome, this.executor.registry.get(tool)?.outputSchema);
    return outcome.ok
      ? { status: "completed" as const, statusMessage: null, result: result as Record<string, unknown> }
      : { status: "failed" as const, statusMessage: outcome.error.message, result: result as Record<string, unknown> };
  }
}

function isRowStore(value: Db | McpTaskRowStore): value is McpTaskRowStore {
  return typeof (value as Partial<McpTaskRowStore>).claim === "function";
}

function toTask(row: McpTaskRow): Task {
  return {
    taskId: row.id,
    status: row.status,
    ttl: row.ttlMs,
    createdAt: new Date(row.createdAt).toISOString(),
    lastUpdatedAt: new Date(row.updatedAt).toISOString(),
    pollInterval: row.pollIntervalMs,
    ...(row.statusMessage && { statusMessage: row.statusMessage }),
  };
}
