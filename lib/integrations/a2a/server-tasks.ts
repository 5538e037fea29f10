import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import type { ApprovalStore } from "../../approvals/store";
import { A2A_TERMINAL_STATES, A2ATaskRows, type A2AParkedCall } from "../../db/a2a-tasks";
import type { Db } from "../../db/connection";
import { isDomainError } from "../../errors";
import type { Logger } from "../../log";

export interface A2ATaskOptions {
  /** How long a task is kept after its last change (24 h unless set). */
  ttlMs?: number;
  /** Tasks one principal may hold; past it its oldest ended tasks go, and a caller whose open tasks fill it is refused. */
  maxPerOwner?: number;
  now?: () => number;
}

const HOUR = 3600 * 1000;

/** The principal a call is made for: the SDK hands it over as the user's name. */
export function ownerOf(context: ServerCallContext): string {
  const name = context.user?.userName;
  if (!name) throw new Error("A2A calls reach the task store only with an authenticated principal");
  return name;
}

/**
 * The SDK's TaskStore over the a2a_tasks table, so tasks outlive the process and any console over
 * the same database can resume them. Every lookup is bound to the calling principal. The call a
 * task waits on is handed over by the executor (`park`) and written with the task's
 * input-required state, never into the task the client reads. A task cancelled while parked
 * withdraws the approvals it waited on.
 */
export class A2ATasks implements TaskStore {
  private readonly rows: A2ATaskRows;
  private readonly ttlMs: number;
  private readonly maxPerOwner: number;
  private readonly now: () => number;
  /** Calls parked by the executor, written with the next save of their task. */
  private readonly staged = new Map<string, A2AParkedCall>();

  constructor(
    db: Db,
    private readonly approvals: ApprovalStore,
    private readonly logger: Logger,
    options: A2ATaskOptions = {},
  ) {
    this.rows = new A2ATaskRows(db);
    this.ttlMs = options.ttlMs ?? 24 * HOUR;
    this.maxPerOwner = options.maxPerOwner ?? 1000;
    this.now = options.now ?? Date.now;
  }

  /** Keep `parked` as the call task `taskId` waits on; written when the task is next saved. */
  park(taskId: string, parked: A2AParkedCall): void {
    this.staged.set(taskId, parked);
  }

  /** The call the principal's task waits on, if it waits on one. */
  parked(principal: string, taskId: string): A2AParkedCall | undefined {
    return this.rows.get(principal, taskId, this.now())?.parked ?? undefined;
  }

  /**
   * Whether `principal` may start one more task: expired tasks are forgotten and, at the cap, its
   * oldest ended tasks make room. False when its open tasks alone fill the cap.
   */
  admit(principal: string): boolean {
    const now = this.now();
    this.rows.deleteExpired(now);
    return this.rows.makeRoom(principal, this.maxPerOwner, now);
  }

  /** The largest number of tasks one principal may hold. */
  get cap(): number {
    return this.maxPerOwner;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const principal = ownerOf(context);
    const now = this.now();
    const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
    const ended = A2A_TERMINAL_STATES.includes(state);
    const staged = this.staged.get(task.id);
    let parked: A2AParkedCall | null | undefined;
    if (ended) parked = null;
    else if (staged && state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      parked = staged;
      this.staged.delete(task.id);
    }
    const before = ended ? this.rows.get(principal, task.id, now) : undefined;
    this.rows.save(
      {
        id: task.id,
        principal,
        contextId: task.contextId,
        state,
        task: Task.toJSON(task) as Record<string, unknown>,
        parked,
        expiresAt: now + this.ttlMs,
      },
      now,
    );
    if (ended) this.staged.delete(task.id);
    if (state === TaskState.TASK_STATE_CANCELED && before?.parked) this.withdraw(before.parked, principal);
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const row = this.rows.get(ownerOf(context), taskId, this.now());
    return row ? Task.fromJSON(row.task) : undefined;
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const principal = ownerOf(context);
    const now = this.now();
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
    const filter = {
      ...(params.contextId && { contextId: params.contextId }),
      ...(params.status !== undefined && params.status !== TaskState.TASK_STATE_UNSPECIFIED && { state: params.status }),
      ...(after !== undefined && Number.isFinite(after) && { updatedAfter: after }),
    };
    const pageSize = params.pageSize ?? 50;
    const page = this.rows.page(principal, filter, params.pageToken || undefined, pageSize, now);
    const tasks = page.items.map((row) => {
      const task = Task.fromJSON(row.task);
      if (!params.includeArtifacts) task.artifacts = [];
      return task;
    });
    return { tasks, nextPageToken: page.nextCursor ?? "", pageSize, totalSize: this.rows.countFor(principal, filter, now) };
  }

  /** Cancel the approvals a cancelled task waited on; one decided meanwhile is left as it is. */
  private withdraw(parked: A2AParkedCall, principal: string): void {
    for (const call of parked.calls) {
      try {
        this.approvals.cancel(call.approvalId, principal, "the A2A client cancelled its task");
      } catch (error) {
        if (!isDomainError(error)) this.logger.error("could not withdraw the approval of a cancelled A2A task", { error });
      }
    }
  }
}
