import { randomUUID } from "node:crypto";
import { Task, TaskState } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { A2ATaskRows } from "@/lib/db/a2a-tasks";
import type { SqliteServices } from "@/lib/services";
import { A2ATasks } from "@/lib/integrations/a2a/server-tasks";
import { countRows } from "../support/database";
import { testServices } from "../support/services";

const opened: SqliteServices[] = [];
afterEach(() => {
  for (const services of opened.splice(0)) services.close();
});

function setup(options: ConstructorParameters<typeof A2ATasks>[3] = {}) {
  const services = testServices();
  opened.push(services);
  const tasks = new A2ATasks(services.database.db, services.approvals, services.logger, options);
  return { services, tasks };
}

const as = (userName: string) => new ServerCallContext({ user: { isAuthenticated: true, userName } });
const alice = as("alice");

function taskIn(state: TaskState, id: string = randomUUID()): Task {
  return Task.fromJSON({ id, contextId: `ctx-${id}`, status: { state, timestamp: new Date().toISOString() }, history: [], artifacts: [] });
}

/** Rows SQLite has changed since the connection opened (its own counter, past any cache). */
const writes = (services: SqliteServices) => (services.database.sqlite.prepare("select total_changes() as n").get() as { n: number }).n;
const nextTick = () => new Promise((resolve) => setImmediate(resolve));
const stateOnDisk = (services: SqliteServices, id: string) =>
  (services.database.sqlite.prepare("select state from a2a_tasks where id = ?").get(id) as { state: number } | undefined)?.state;

describe("A2A task store: what reaches SQLite and when", () => {
  it("a call's passing states stay in memory and its end is on disk once its save resolves, in one write", async () => {
    const { services, tasks } = setup();
    const task = taskIn(TaskState.TASK_STATE_SUBMITTED);
    const before = writes(services);
    await tasks.save(task, alice);
    const working = (await tasks.load(task.id, alice))!;
    working.status!.state = TaskState.TASK_STATE_WORKING;
    await tasks.save(working, alice);
    const done = (await tasks.load(task.id, alice))!;
    expect(done.status!.state).toBe(TaskState.TASK_STATE_WORKING);
    done.status!.state = TaskState.TASK_STATE_COMPLETED;
    await tasks.save(done, alice);
    // On disk by the time its save resolves.
    expect(stateOnDisk(services, task.id)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(writes(services) - before).toBe(1);
    await nextTick();
    expect(writes(services) - before).toBe(1);
    expect((await tasks.load(task.id, alice))!.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("a running task reaches SQLite within a tick, and is listed and counted against the cap before that", async () => {
    const { services, tasks } = setup({ maxPerOwner: 1 });
    const running = taskIn(TaskState.TASK_STATE_WORKING);
    await tasks.save(running, alice);
    const listed = await tasks.list(
      {
        tenant: "",
        contextId: "",
        status: 0,
        pageSize: 10,
        pageToken: "",
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: false,
      },
      alice,
    );
    expect(listed.tasks.map((t) => t.id)).toEqual([running.id]);
    expect(await tasks.admit("alice")).toBe(false);
    expect(await tasks.admit("bob")).toBe(true);
    await nextTick();
    expect(stateOnDisk(services, running.id)).toBe(TaskState.TASK_STATE_WORKING);
    expect(await tasks.admit("alice")).toBe(false);
  });

  it("an input-required task and the call it waits on are on disk at once, for another console to resume", async () => {
    const { services, tasks } = setup();
    const waiting = taskIn(TaskState.TASK_STATE_INPUT_REQUIRED);
    const call = {
      tool: "issue_refund",
      args: { orderId: "1" },
      scope: `a2a:${waiting.id}`,
      callId: "c1",
      runId: waiting.id,
      approvalId: "ap-1",
    };
    tasks.park(waiting.id, { kind: "tool", calls: [call] });
    await tasks.save(waiting, alice);
    const other = new A2ATasks(services.database.db, services.approvals, services.logger);
    expect((await other.load(waiting.id, alice))!.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(await other.parked("alice", waiting.id)).toEqual({ kind: "tool", calls: [call] });
    expect(countRows(services.database, "a2a_tasks", "approval_id = ?", "ap-1")).toBe(1);
  });

  it("hands out copies, and a live task only to its own principal", async () => {
    const { tasks } = setup();
    const task = taskIn(TaskState.TASK_STATE_WORKING);
    await tasks.save(task, alice);
    task.status!.state = TaskState.TASK_STATE_FAILED;
    const loaded = (await tasks.load(task.id, alice))!;
    expect(loaded.status!.state).toBe(TaskState.TASK_STATE_WORKING);
    loaded.history.push({ ...loaded.history[0]!, messageId: "changed" } as Task["history"][number]);
    expect((await tasks.load(task.id, alice))!.history).toEqual([]);
    expect(await tasks.load(task.id, as("mallory"))).toBeUndefined();
    // Mallory's save of the same id changes nothing of Alice's task.
    await tasks.save(taskIn(TaskState.TASK_STATE_COMPLETED, task.id), as("mallory"));
    expect((await tasks.load(task.id, alice))!.status!.state).toBe(TaskState.TASK_STATE_WORKING);
  });

  it("a task being created loads as none for its principal without a read; its first save or `created` ends that", async () => {
    const { services, tasks } = setup();
    // A row under the same id, as if another console had written one: only a read could find it.
    const row = taskIn(TaskState.TASK_STATE_COMPLETED);
    await tasks.save(row, alice);
    const reads = vi.spyOn(A2ATaskRows.prototype, "get");
    try {
      tasks.creating(row.id, "alice");
      expect(await tasks.load(row.id, alice)).toBeUndefined();
      expect(reads).not.toHaveBeenCalled();
      // Another principal's load is not answered from the mark.
      expect(await tasks.load(row.id, as("bob"))).toBeUndefined();
      expect(reads).toHaveBeenCalledTimes(1);
      tasks.created(row.id);
      expect((await tasks.load(row.id, alice))!.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);

      const fresh = taskIn(TaskState.TASK_STATE_SUBMITTED);
      tasks.creating(fresh.id, "alice");
      await tasks.save(fresh, alice);
      expect((await tasks.load(fresh.id, alice))!.status!.state).toBe(TaskState.TASK_STATE_SUBMITTED);
      await tasks.flush();
      expect(stateOnDisk(services, fresh.id)).toBe(TaskState.TASK_STATE_SUBMITTED);
    } finally {
      reads.mockRestore();
    }
  });
});

describe("A2A task store: the cap", () => {
  it("at the cap drops the oldest ended tasks, a tenth of the cap beyond what it must, and never an open one", async () => {
    const { services, tasks } = setup({ maxPerOwner: 200 });
    const made: string[] = [];
    const start = async (state: TaskState) => {
      expect(await tasks.admit("alice")).toBe(true);
      const task = taskIn(state);
      made.push(task.id);
      await tasks.save(task, alice);
    };
    await start(TaskState.TASK_STATE_INPUT_REQUIRED);
    for (let i = 1; i < 200; i++) await start(TaskState.TASK_STATE_COMPLETED);
    expect(countRows(services.database, "a2a_tasks")).toBe(200);
    await start(TaskState.TASK_STATE_COMPLETED);
    // One had to go; twenty more (200 / 10) went with it, the oldest ended ones.
    expect(countRows(services.database, "a2a_tasks")).toBe(180);
    const oldest = made.slice(0, 23);
    expect(countRows(services.database, "a2a_tasks", `id in (${oldest.map(() => "?").join(", ")})`, ...oldest)).toBe(2);
    expect(stateOnDisk(services, made[0]!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOnDisk(services, made[22]!)).toBe(TaskState.TASK_STATE_COMPLETED);
    // The room made is used before SQLite is asked again.
    for (let i = 0; i < 20; i++) await start(TaskState.TASK_STATE_COMPLETED);
    expect(countRows(services.database, "a2a_tasks")).toBe(200);
  });

  it("refuses a new task when open tasks fill the cap, and deletes nothing", async () => {
    const { services, tasks } = setup({ maxPerOwner: 3 });
    for (let i = 0; i < 3; i++) {
      expect(await tasks.admit("alice")).toBe(true);
      await tasks.save(taskIn(i ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_COMPLETED), alice);
    }
    expect(await tasks.admit("alice")).toBe(true);
    await tasks.save(taskIn(TaskState.TASK_STATE_INPUT_REQUIRED), alice);
    expect(await tasks.admit("alice")).toBe(false);
    expect(countRows(services.database, "a2a_tasks")).toBe(3);
  });

  it("forgets expired tasks", async () => {
    let now = 1_000_000;
    const { services, tasks } = setup({ ttlMs: 1000, now: () => now });
    const task = taskIn(TaskState.TASK_STATE_COMPLETED);
    await tasks.save(task, alice);
    expect(await tasks.load(task.id, alice)).toBeDefined();
    now += 61_000;
    expect(await tasks.load(task.id, alice)).toBeUndefined();
    expect(await tasks.admit("alice")).toBe(true);
    expect(countRows(services.database, "a2a_tasks")).toBe(0);
  });
});

describe("A2A task store: copies", () => {
  it("a live task's copy keeps every part, bytes included, and shares nothing with what was saved", async () => {
    const { tasks } = setup();
    const task = taskIn(TaskState.TASK_STATE_WORKING);
    task.metadata = { nested: { list: [1, { deep: true }] } };
    task.artifacts = [
      {
        artifactId: "a1",
        name: "bytes",
        description: "",
        parts: [
          { content: { $case: "raw", value: Buffer.from("hello") }, mediaType: "text/plain", filename: "h.txt", metadata: undefined },
        ],
        metadata: undefined,
        extensions: [],
      },
    ];
    await tasks.save(task, alice);
    (task.metadata.nested as { list: unknown[] }).list.push("later");
    const raw = task.artifacts[0]!.parts[0]!.content as { value: Uint8Array };
    raw.value[0] = 0;
    const loaded = (await tasks.load(task.id, alice))!;
    expect(loaded.metadata).toEqual({ nested: { list: [1, { deep: true }] } });
    const bytes = (loaded.artifacts[0]!.parts[0]!.content as { value: Uint8Array }).value;
    expect(Buffer.from(bytes).toString()).toBe("hello");
    expect(Task.toJSON(loaded)).toMatchObject({ artifacts: [{ parts: [{ raw: Buffer.from("hello").toString("base64") }] }] });
  });
});

describe("A2A task store: resting states are on disk before their save resolves", () => {
  it("tasks ending in the same tick are written together, and each save waits for that write", async () => {
    const { services, tasks } = setup();
    const ending = [taskIn(TaskState.TASK_STATE_COMPLETED), taskIn(TaskState.TASK_STATE_FAILED), taskIn(TaskState.TASK_STATE_REJECTED)];
    const before = writes(services);
    const saves = ending.map((task) => tasks.save(task, alice));
    // Nothing is written within the tick; every save still waits.
    expect(writes(services) - before).toBe(0);
    let settled = 0;
    for (const save of saves) void save.then(() => settled++);
    await Promise.resolve();
    expect(settled).toBe(0);
    await Promise.all(saves);
    expect(ending.map((task) => stateOnDisk(services, task.id))).toEqual([
      TaskState.TASK_STATE_COMPLETED,
      TaskState.TASK_STATE_FAILED,
      TaskState.TASK_STATE_REJECTED,
    ]);
    expect(writes(services) - before).toBe(3);
  });

  it("a save whose write fails is refused, and the task is not served from memory afterwards", async () => {
    const { services, tasks } = setup();
    const task = taskIn(TaskState.TASK_STATE_COMPLETED);
    services.database.sqlite.exec("create trigger refuse before insert on a2a_tasks begin select raise(abort, 'disk says no'); end");
    await expect(tasks.save(task, alice)).rejects.toThrow(/disk says no/);
    expect(await tasks.load(task.id, alice)).toBeUndefined();
  });
});
