import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import type { ApprovalStore } from "../../approvals/store";
import {
  A2A_TERMINAL_STATES,
  A2ATaskRows,
  type A2AParkedCall,
  type A2ATaskRow,
  type A2ATaskRowStore,
  type A2ATaskWrite,
} from "../../db/a2a-tasks";
import type { Db } from "../../db/connection";
import { isDomainError } from "../../errors";
import { copyPlain } from "../../json/copy";
import { agentMessage, textPart } from "./agent-message";
import type { Logger } from "../../log";

export interface A2ATaskOptions {
  /** How long a task is kept after its last change (24 h unless set). */
  ttlMs?: number;
  /** Tasks one principal may hold; past it its oldest ended tasks go, and a caller whose open tasks fill it is refused. */
  maxPerOwner?: number;
  now?: () => number;
  /** How often a task running in this process is written again to show it still runs (30 s unless set). */
  heartbeatMs?: number;
  /**
   * A submitted or working task written longer ago than this runs nowhere (its console stopped
   * while it ran): it is read as failed, and written so (three heartbeats unless set).
   */
  abandonedAfterMs?: number;
}

const HOUR = 3600 * 1000;
const HEARTBEAT_MS = 30 * 1000;
/** States of a task whose executor is still working on it. */
const PASSING_STATES: ReadonlySet<number> = new Set([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]);
const ABANDONED_MESSAGE =
  "The console stopped while this task ran; whether its call ran is not known. Send the message again to start anew.";

/** The principal a call is made for: the SDK hands it over as the user's name. */
export function ownerOf(context: ServerCallContext): string {
  const name = context.user?.userName;
  if (!name) throw new Error("A2A calls reach the task store only with an authenticated principal");
  return name;
}

/** States a task may stay in after its executor has returned: a save of one resolves only once it is on disk. */
const DURABLE_STATES: ReadonlySet<TaskState> = new Set([
  ...A2A_TERMINAL_STATES,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** How often expired tasks are swept away at most (reads skip them meanwhile). */
const SWEEP_EVERY_MS = 60 * 1000;

/** A task saved in this process: passing, or resting and not yet written. */
interface LiveTask {
  principal: string;
  /** The store's own copy: callers get copies of it, never it. */
  task: Task;
  /** Set when the task is in a resting state, waiting for its write; with the parked call to write, if any (null clears it). */
  rest?: { parked?: A2AParkedCall | null };
}

/** A live task as it was when handed to the rows. */
interface BatchEntry {
  id: string;
  live: LiveTask;
}

/**
 * The SDK's TaskStore over the a2a_tasks table, so tasks outlive the process and any console over
 * the same database can resume them. Every lookup is bound to the calling principal.
 *
 * The SDK loads and saves a task on every event of a call (four of each for one tool call). Saves
 * go to memory, where a live task is read from, and are written at the end of the tick, every task
 * changed in that tick in one transaction, which starts only after the one before it ended (so a
 * task's states land in the order they were saved, whatever the database). A save of a resting
 * state (ended, input-required, auth-required) resolves only once that write is done, and the SDK
 * answers the client only after it: a restart loses no task a client has heard of. The passing states (submitted, working) need
 * not wait: a quick call costs one row write, shared in one commit with the calls that ended in
 * the same tick, and a long one is on disk as working within a tick. Listing, the cap and a
 * resume write pending tasks first.
 *
 * The call a task waits on is handed over by the executor (`park`) and written with the task's
 * input-required state, never into the task the client reads. A task cancelled while parked
 * withdraws the approvals it waited on.
 */
export class A2ATasks implements TaskStore {
  private readonly rows: A2ATaskRowStore;
  private readonly ttlMs: number;
  private readonly maxPerOwner: number;
  private readonly now: () => number;
  /** Calls parked by the executor, written with the next save of their task. */
  private readonly staged = new Map<string, A2AParkedCall>();
  private readonly live = new Map<string, LiveTask>();
  /** Tasks being created (by id, with their principal) and not saved yet: no row can hold them. */
  private readonly newTasks = new Map<string, string>();
  /** Live tasks changed since they were last written. */
  private readonly pending = new Set<string>();
  private flushing: NodeJS.Immediate | undefined;
  /** Settles (never rejects) once every batch handed to the rows so far has been written or refused. */
  private written: Promise<void> = Promise.resolve();
  /** Saves of resting states, settled by the flush that writes them. */
  private readonly waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  /** Tasks each principal may still start before the database is asked again (see admit). */
  private readonly room = new Map<string, number>();
  /** A principal's ask for room in flight: its other admissions wait for that answer. */
  private readonly asking = new Map<string, Promise<number>>();
  private sweptAt = -Infinity;
  private readonly heartbeatMs: number;
  private readonly abandonedAfterMs: number;
  /** Writes the tasks running here again every heartbeat, while there are any. */
  private heartbeat: NodeJS.Timeout | undefined;

  /** Over a SQLite database (its A2ATaskRows), or over any implementation of the rows. */
  constructor(
    rows: Db | A2ATaskRowStore,
    private readonly approvals: ApprovalStore,
    private readonly logger: Logger,
    options: A2ATaskOptions = {},
  ) {
    this.rows = isRowStore(rows) ? rows : new A2ATaskRows(rows);
    this.ttlMs = options.ttlMs ?? 24 * HOUR;
    this.maxPerOwner = options.maxPerOwner ?? 1000;
    this.now = options.now ?? Date.now;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.abandonedAfterMs = options.abandonedAfterMs ?? 3 * this.heartbeatMs;
  }

  /**
   * Task `taskId` of `principal` is being created (the SDK made its id up for a message naming no
   * task): until its first save, loading it answers "none" without asking the database, which the
   * SDK does for every new task's first event. `created` ends that, saved or not.
   */
  creating(taskId: string, principal: string): void {
    this.newTasks.set(taskId, principal);
  }

  created(taskId: string): void {
    this.newTasks.delete(taskId);
  }

  /** Keep `parked` as the call task `taskId` waits on; written when the task is next saved. */
  park(taskId: string, parked: A2AParkedCall): void {
    this.staged.set(taskId, parked);
  }

  /** The call the principal's task waits on, if it waits on one. */
  async parked(principal: string, taskId: string): Promise<A2AParkedCall | undefined> {
    await this.flush();
    return (await this.rows.get(principal, taskId, this.now()))?.parked ?? undefined;
  }

  /**
   * Whether `principal` may start one more task: at the cap its oldest ended tasks make room; false
   * when its open tasks alone fill the cap. The database is asked only when the room it granted
   * last time is used up (tasks made in this process are all admitted here, so that room can only
   * be too small, never too large; with other instances on the same rows, the rows bound it), and
   * one ask per principal at a time; at the cap, it drops a tenth of the cap more than it must, so
   * a busy caller pays for the count and the delete (and its other admissions wait for that ask)
   * once per so many tasks. Expired tasks are swept at least once a minute.
   */
  async admit(principal: string): Promise<boolean> {
    const now = this.now();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = now;
      await this.rows.deleteExpired(now);
    }
    for (;;) {
      const room = this.room.get(principal) ?? 0;
      if (room > 0) {
        this.room.set(principal, room - 1);
        return true;
      }
      const asked = this.asking.get(principal);
      if (!asked) break;
      await asked.catch(() => {});
    }
    const asking = this.askForRoom(principal, now);
    this.asking.set(principal, asking);
    try {
      const granted = await asking;
      if (granted === 0) {
        this.room.delete(principal);
        return false;
      }
      this.room.set(principal, granted - 1);
      return true;
    } finally {
      this.asking.delete(principal);
    }
  }

  private async askForRoom(principal: string, now: number): Promise<number> {
    // Live tasks must be on disk to be counted.
    await this.flush();
    return this.rows.makeRoom(principal, this.maxPerOwner, now, Math.floor(this.maxPerOwner / 10));
  }

  /** The largest number of tasks one principal may hold. */
  get cap(): number {
    return this.maxPerOwner;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const principal = ownerOf(context);
    const live = this.live.get(task.id);
    // A task live here belongs to the caller that started it; another's write of its id is dropped.
    if (live && live.principal !== principal) return;
    // A resting state waiting for its write is written before anything replaces it.
    if (live?.rest) void this.flush();
    const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
    const entry: LiveTask = { principal, task: copyPlain(task) };
    if (DURABLE_STATES.has(state)) {
      const ended = A2A_TERMINAL_STATES.includes(state);
      const staged = this.staged.get(task.id);
      let parked: A2AParkedCall | null | undefined;
      if (ended) parked = null;
      else if (staged && state === TaskState.TASK_STATE_INPUT_REQUIRED) parked = staged;
      if (ended || parked) this.staged.delete(task.id);
      entry.rest = { ...(parked !== undefined && { parked }) };
    }
    this.live.set(task.id, entry);
    this.newTasks.delete(task.id);
    this.pending.add(task.id);
    this.flushing ??= setImmediate(() => void this.flush());
    if (!entry.rest) {
      this.beat();
      return;
    }
    // Answered once the row is on disk: the SDK answers the client only after this resolves.
    await new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const principal = ownerOf(context);
    const live = this.live.get(taskId);
    if (live) return live.principal === principal ? copyPlain(live.task) : undefined;
    if (this.newTasks.get(taskId) === principal) return undefined;
    const row = await this.rows.get(principal, taskId, this.now());
    return row ? (await this.tasksOf([row]))[0] : undefined;
  }

  /** Keep writing the tasks running here while there are any, so that no reader takes them for abandoned. */
  private beat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      let running = false;
      for (const [id, live] of this.live) {
        if (live.rest) continue;
        running = true;
        this.pending.add(id);
      }
      if (running) void this.flush();
      else {
        clearInterval(this.heartbeat);
        this.heartbeat = undefined;
      }
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * The rows' tasks, except that one submitted or working and not written for longer than a
   * running task's heartbeat allows is failed: no console runs it any more. The failures are
   * written (in one write), so every reader sees the same end.
   */
  private async tasksOf(rows: A2ATaskRow[]): Promise<Task[]> {
    const now = this.now();
    const failed: A2ATaskWrite[] = [];
    const tasks = rows.map((row) => {
      const task = Task.fromJSON(row.task);
      if (!PASSING_STATES.has(row.state) || now - row.updatedAt <= this.abandonedAfterMs) return task;
      task.status = {
        state: TaskState.TASK_STATE_FAILED,
        timestamp: new Date(now).toISOString(),
        message: agentMessage(task.id, task.contextId, [textPart(ABANDONED_MESSAGE)]),
      };
      failed.push(this.rowOf(task, row.principal, TaskState.TASK_STATE_FAILED, now, null));
      return task;
    });
    if (failed.length) {
      this.logger.warn("A2A tasks were left working by a console that stopped: read as failed", { taskIds: failed.map((w) => w.id) });
      await this.rows.saveMany(failed, now);
    }
    return tasks;
  }

  /**
   * Hand every task changed since its last write to the rows, in one transaction that starts after
   * the ones handed over before it, and settle the saves that wait for it (with the error, if the
   * write failed). Tasks written in a resting state leave memory. Resolves once every write handed
   * over so far is done; never rejects.
   */
  flush(): Promise<void> {
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = undefined;
    if (!this.pending.size) return this.written;
    const batch: BatchEntry[] = [];
    for (const id of this.pending) {
      const live = this.live.get(id);
      if (live) batch.push({ id, live });
    }
    this.pending.clear();
    const waiting = this.waiting.splice(0);
    this.written = this.written.then(() => this.write(batch, waiting));
    return this.written;
  }

  /** Write one batch and settle its saves. Never rejects. */
  private async write(batch: BatchEntry[], waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }>): Promise<void> {
    if (!this.rows.open) {
      // Shut down: nothing more can be written.
      this.pending.clear();
      this.live.clear();
      for (const { reject } of waiting) reject(new Error("the database is closed"));
      return;
    }
    const now = this.now();
    const writes: A2ATaskWrite[] = [];
    const withdrawals: Array<{ parked: A2AParkedCall; principal: string }> = [];
    let failure: unknown;
    try {
      for (const { id, live } of batch) {
        const state = live.task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
        // Only a cancel withdraws approvals, and only those of a call the task was parked on.
        if (live.rest && state === TaskState.TASK_STATE_CANCELED) {
          const before = (await this.rows.get(live.principal, id, now))?.parked;
          if (before) withdrawals.push({ parked: before, principal: live.principal });
        }
        writes.push(this.rowOf(live.task, live.principal, state, now, live.rest?.parked));
      }
      await this.rows.saveMany(writes, now);
    } catch (error) {
      failure = error;
      // A passing state is written again with the task's next change; a resting one is the
      // caller's to retry (its save fails), and is read from the database again meanwhile.
      this.logger.error("could not write A2A tasks", { error, tasks: batch.map((entry) => entry.id) });
    }
    // A resting task saved again meanwhile stays: its newer state waits for its own write.
    for (const { id, live } of batch) if (live.rest && this.live.get(id) === live) this.live.delete(id);
    const settle = () => {
      for (const { resolve, reject } of waiting) {
        if (failure === undefined) resolve();
        else reject(failure);
      }
    };
    // A cancel's save resolves once the approvals it withdraws are cancelled (withdraw never rejects).
    if (withdrawals.length) void Promise.all(withdrawals.map(({ parked, principal }) => this.withdraw(parked, principal))).then(settle);
    else settle();
  }

  private rowOf(task: Task, principal: string, state: number, now: number, parked?: A2AParkedCall | null): A2ATaskWrite {
    return {
      id: task.id,
      principal,
      contextId: task.contextId,
      state,
      task: Task.toJSON(task) as Record<string, unknown>,
      ...(parked !== undefined && { parked }),
      expiresAt: now + this.ttlMs,
    };
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const principal = ownerOf(context);
    await this.flush();
    const now = this.now();
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
    const filter = {
      ...(params.contextId && { contextId: params.contextId }),
      ...(params.status !== undefined && params.status !== TaskState.TASK_STATE_UNSPECIFIED && { state: params.status }),
      ...(after !== undefined && Number.isFinite(after) && { updatedAfter: after }),
    };
    const pageSize = params.pageSize ?? 50;
    const page = await this.rows.page(principal, filter, params.pageToken || undefined, pageSize, now);
    // Rows of tasks running here are at most a heartbeat old (or were just written, above): none reads as abandoned.
    const tasks = await this.tasksOf(page.items);
    if (!params.includeArtifacts) for (const task of tasks) task.artifacts = [];
    return { tasks, nextPageToken: page.nextCursor ?? "", pageSize, totalSize: await this.rows.countFor(principal, filter, now) };
  }

  /** Cancel the approvals a cancelled task waited on; one decided meanwhile is left as it is. */
  private async withdraw(parked: A2AParkedCall, principal: string): Promise<void> {
    for (const call of parked.calls) {
      try {
        await this.approvals.cancel(call.approvalId, principal, "the A2A client cancelled its task");
      } catch (error) {
        if (!isDomainError(error)) this.logger.error("could not withdraw the approval of a cancelled A2A task", { error });
      }
    }
  }
}

function isRowStore(value: Db | A2ATaskRowStore): value is A2ATaskRowStore {
  return typeof (value as Partial<A2ATaskRowStore>).makeRoom === "function";
}
