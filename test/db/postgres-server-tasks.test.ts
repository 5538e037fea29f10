// MCP and A2A server tasks over both dialects: the same behaviour tests run on SQLite (McpTaskRows
// and A2ATaskRows on a temporary file) and on PostgreSQL (PgMcpTaskRows and PgA2ATaskRows on this
// file's own database), then, on PostgreSQL, two connection pools stand for two console instances
// sharing the rows: one claim of a task among many, the cap on MCP tasks held under concurrent
// creates, and room made once for a caller both instances admit at the same moment.
import { randomUUID } from "node:crypto";
import { Task, TaskState } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { ApprovalStore } from "@/lib/approvals/store";
import type { DatabaseHandle } from "@/lib/db";
import { A2ATaskRows, type A2AParkedCall, type A2ATaskRowStore, type A2ATaskWrite } from "@/lib/db/a2a-tasks";
import { InvalidCursor } from "@/lib/db/cursor";
import { McpTaskRows, type McpTaskRowStore, type NewMcpTask } from "@/lib/db/mcp-tasks";
import { PgA2ATaskRows } from "@/lib/db/postgres/a2a-tasks";
import { PgMcpTaskRows } from "@/lib/db/postgres/mcp-tasks";
import { Executor } from "@/lib/execution";
import { A2ATasks } from "@/lib/integrations/a2a/server-tasks";
import { McpTasks } from "@/lib/integrations/mcp/server-tasks";
import { silentLogger } from "@/lib/log";
import { ToolRegistry } from "@/lib/tools";
import { freshDatabase } from "../support/database";
import { postgresDatabase, postgresPool } from "../support/postgres";

const database = postgresDatabase();
const pg = postgresPool(database);

let sqliteHandle: DatabaseHandle | undefined;
afterAll(() => sqliteHandle?.close());

interface Rows {
  mcp: McpTaskRowStore;
  a2a: A2ATaskRowStore;
  /** How much room makeRoom grants below the cap: all of it on SQLite (one process), slack + 1 at most on PostgreSQL. */
  roomBelowCap(cap: number, held: number, slack: number): number;
}

const dialects: Array<[string, () => Promise<Rows>]> = [
  [
    "SQLite",
    async () => {
      sqliteHandle?.close();
      sqliteHandle = freshDatabase();
      return { mcp: new McpTaskRows(sqliteHandle.db), a2a: new A2ATaskRows(sqliteHandle.db), roomBelowCap: (cap, held) => cap - held };
    },
  ],
  [
    "PostgreSQL",
    async () => {
      await pg.pool.query("truncate mcp_tasks, a2a_tasks");
      return {
        mcp: new PgMcpTaskRows(pg.db),
        a2a: new PgA2ATaskRows(pg.db),
        roomBelowCap: (cap, held, slack) => Math.min(cap - held, slack + 1),
      };
    },
  ],
];

const NOW = 1_000_000;
const HOUR = 3600_000;

const mcpTask = (id: string, overrides: Partial<NewMcpTask> = {}): NewMcpTask => ({
  id,
  principal: "alice",
  status: "input_required",
  tool: "issue_refund",
  args: { orderId: "1", nested: { list: [1, "two", null] } },
  scope: "mcp",
  callId: `call-${id}`,
  runId: `run-${id}`,
  approvalId: "ap-1",
  ttlMs: HOUR,
  pollIntervalMs: 2000,
  expiresAt: NOW + HOUR,
  ...overrides,
});

const parkedOn = (approvalId: string): A2AParkedCall => ({
  kind: "tool",
  calls: [{ tool: "issue_refund", args: { orderId: "1" }, scope: "a2a:t", callId: "c1", runId: "t", approvalId }],
});

const a2aWrite = (id: string, overrides: Partial<A2ATaskWrite> = {}): A2ATaskWrite => ({
  id,
  principal: "alice",
  contextId: `ctx-${id}`,
  state: 3,
  task: { id, contextId: `ctx-${id}`, status: { state: "TASK_STATE_COMPLETED" }, history: [], artifacts: [] },
  expiresAt: NOW + HOUR,
  ...overrides,
});

describe.each(dialects)("server tasks on %s", (_name, fresh) => {
  let rows: Rows;
  beforeEach(async () => {
    rows = await fresh();
  });

  describe("MCP task rows", () => {
    it("inserts a task and reads it back only for its principal, and only until it expires", async () => {
      const inserted = await rows.mcp.insert(mcpTask("t1"), 10, NOW);
      expect(inserted).toMatchObject({ id: "t1", status: "input_required", createdAt: NOW, updatedAt: NOW, leaseUntil: null });
      const read = await rows.mcp.get("alice", "t1", NOW + 1);
      expect(read).toEqual(inserted);
      expect(read!.args).toEqual({ orderId: "1", nested: { list: [1, "two", null] } });
      expect(await rows.mcp.get("bob", "t1", NOW + 1)).toBeUndefined();
      expect(await rows.mcp.get("alice", "t1", NOW + HOUR)).toBeUndefined();
    });

    it("refuses an insert past the principal's cap, counting only its unexpired tasks", async () => {
      await rows.mcp.insert(mcpTask("old", { expiresAt: NOW + 10 }), 2, NOW);
      await rows.mcp.insert(mcpTask("t1"), 2, NOW);
      expect(await rows.mcp.countFor("alice", NOW)).toBe(2);
      expect(await rows.mcp.insert(mcpTask("t2"), 2, NOW)).toBeUndefined();
      // Once "old" expired it no longer counts; another principal has its own cap.
      expect(await rows.mcp.insert(mcpTask("t2"), 2, NOW + 10)).toBeDefined();
      expect(await rows.mcp.insert(mcpTask("b1", { principal: "bob" }), 2, NOW + 10)).toBeDefined();
      expect(await rows.mcp.countFor("alice", NOW + 10)).toBe(2);
      expect(await rows.mcp.countFor("bob", NOW + 10)).toBe(1);
    });

    it("pages the principal's tasks newest first with a cursor, and rejects a bad cursor", async () => {
      for (let i = 0; i < 5; i++) await rows.mcp.insert(mcpTask(`t${i}`), 10, NOW + i);
      await rows.mcp.insert(mcpTask("b0", { principal: "bob" }), 10, NOW + 9);
      const first = await rows.mcp.page("alice", undefined, 2, NOW + 10);
      expect(first.items.map((row) => row.id)).toEqual(["t4", "t3"]);
      const second = await rows.mcp.page("alice", first.nextCursor, 2, NOW + 10);
      expect(second.items.map((row) => row.id)).toEqual(["t2", "t1"]);
      const last = await rows.mcp.page("alice", second.nextCursor, 2, NOW + 10);
      expect(last.items.map((row) => row.id)).toEqual(["t0"]);
      expect(last.nextCursor).toBeUndefined();
      await expect(rows.mcp.page("alice", "not a cursor", 2, NOW)).rejects.toBeInstanceOf(InvalidCursor);
    });

    it("finds the unexpired tasks waiting for an approval, whoever asked", async () => {
      await rows.mcp.insert(mcpTask("a"), 10, NOW);
      await rows.mcp.insert(mcpTask("b", { principal: "bob" }), 10, NOW);
      await rows.mcp.insert(mcpTask("done", { status: "completed" }), 10, NOW);
      await rows.mcp.insert(mcpTask("other", { approvalId: "ap-2" }), 10, NOW);
      await rows.mcp.insert(mcpTask("expired", { expiresAt: NOW + 5 }), 10, NOW);
      const waiting = await rows.mcp.waitingFor("ap-1", NOW + 5);
      expect(waiting.map((row) => row.id).sort()).toEqual(["a", "b"]);
    });

    it("claims a waiting task once, takes over one whose lease lapsed, and never an ended one", async () => {
      await rows.mcp.insert(mcpTask("t1"), 10, NOW);
      const claimed = await rows.mcp.claim("t1", NOW + 100, NOW);
      expect(claimed).toMatchObject({ id: "t1", status: "working", leaseUntil: NOW + 100, updatedAt: NOW });
      expect(await rows.mcp.claim("t1", NOW + 200, NOW + 50)).toBeUndefined();
      // The holder stopped: after its lease, another takes the task over.
      expect(await rows.mcp.claim("t1", NOW + 300, NOW + 101)).toMatchObject({ status: "working", leaseUntil: NOW + 300 });
      const result = { content: [{ type: "text", text: "refunded" }], structuredContent: { ok: true } };
      const ended = await rows.mcp.update("t1", { status: "completed", statusMessage: null, result }, NOW + 102);
      expect(ended).toMatchObject({ status: "completed", leaseUntil: null, result });
      expect(await rows.mcp.claim("t1", NOW + 500, NOW + 400)).toBeUndefined();
      expect(await rows.mcp.update("t1", { status: "cancelled" }, NOW + 400)).toBeUndefined();
      expect((await rows.mcp.get("alice", "t1", NOW + 400))!.result).toEqual(result);
    });

    it("deletes expired tasks and says how many went", async () => {
      await rows.mcp.insert(mcpTask("t1", { expiresAt: NOW + 10 }), 10, NOW);
      await rows.mcp.insert(mcpTask("t2", { expiresAt: NOW + 20 }), 10, NOW);
      await rows.mcp.insert(mcpTask("t3"), 10, NOW);
      expect(await rows.mcp.deleteExpired(NOW + 20)).toBe(2);
      expect(await rows.mcp.deleteExpired(NOW + 20)).toBe(0);
      expect((await rows.mcp.page("alice", undefined, 10, NOW)).items.map((row) => row.id)).toEqual(["t3"]);
    });
  });

  describe("A2A task rows", () => {
    it("saves a task with the call it waits on, keeps that call on a later save, clears it with null", async () => {
      await rows.a2a.save(a2aWrite("t1", { state: 6, parked: parkedOn("ap-1") }), NOW);
      const saved = await rows.a2a.get("alice", "t1", NOW);
      expect(saved).toMatchObject({ id: "t1", contextId: "ctx-t1", state: 6, approvalId: "ap-1", parked: parkedOn("ap-1") });
      expect(saved!.task).toEqual(a2aWrite("t1").task);
      await rows.a2a.save(a2aWrite("t1", { state: 2 }), NOW + 1);
      expect(await rows.a2a.get("alice", "t1", NOW + 1)).toMatchObject({ state: 2, parked: parkedOn("ap-1"), updatedAt: NOW + 1 });
      await rows.a2a.save(a2aWrite("t1", { parked: null }), NOW + 2);
      expect(await rows.a2a.get("alice", "t1", NOW + 2)).toMatchObject({ state: 3, parked: null, approvalId: null, createdAt: NOW });
      // Another principal's write of the same id changes nothing, and it cannot read the task.
      await rows.a2a.save(a2aWrite("t1", { principal: "mallory", state: 5 }), NOW + 3);
      expect(await rows.a2a.get("mallory", "t1", NOW + 3)).toBeUndefined();
      expect(await rows.a2a.get("alice", "t1", NOW + 3)).toMatchObject({ state: 3, updatedAt: NOW + 2 });
      expect(await rows.a2a.get("alice", "t1", NOW + HOUR + 2)).toBeUndefined();
    });

    it("saves many tasks at once, some keeping their parked call and some setting it", async () => {
      await rows.a2a.save(a2aWrite("kept", { state: 6, parked: parkedOn("ap-k") }), NOW);
      await rows.a2a.saveMany(
        [
          a2aWrite("kept", { state: 2 }),
          a2aWrite("new", { state: 6, parked: parkedOn("ap-n") }),
          a2aWrite("plain", { state: 1 }),
          a2aWrite("cleared", { parked: null }),
        ],
        NOW + 1,
      );
      expect(await rows.a2a.get("alice", "kept", NOW + 1)).toMatchObject({ state: 2, approvalId: "ap-k" });
      expect(await rows.a2a.get("alice", "new", NOW + 1)).toMatchObject({ state: 6, approvalId: "ap-n", parked: parkedOn("ap-n") });
      expect(await rows.a2a.get("alice", "plain", NOW + 1)).toMatchObject({ state: 1, parked: null });
      expect(await rows.a2a.countFor("alice", {}, NOW + 1)).toBe(4);
      await rows.a2a.saveMany([], NOW + 2);
    });

    it("pages and counts the principal's tasks most recently changed first, filtered", async () => {
      for (let i = 0; i < 5; i++) await rows.a2a.save(a2aWrite(`t${i}`, { state: i % 2 ? 2 : 3, contextId: i < 3 ? "c1" : "c2" }), NOW + i);
      await rows.a2a.save(a2aWrite("b0", { principal: "bob" }), NOW + 9);
      const first = await rows.a2a.page("alice", {}, undefined, 2, NOW + 10);
      expect(first.items.map((row) => row.id)).toEqual(["t4", "t3"]);
      const rest = await rows.a2a.page("alice", {}, first.nextCursor, 10, NOW + 10);
      expect(rest.items.map((row) => row.id)).toEqual(["t2", "t1", "t0"]);
      expect(rest.nextCursor).toBeUndefined();
      expect((await rows.a2a.page("alice", { contextId: "c1", state: 3 }, undefined, 10, NOW + 10)).items.map((row) => row.id)).toEqual([
        "t2",
        "t0",
      ]);
      expect((await rows.a2a.page("alice", { updatedAfter: NOW + 2 }, undefined, 10, NOW + 10)).items.map((row) => row.id)).toEqual([
        "t4",
        "t3",
      ]);
      expect(await rows.a2a.countFor("alice", {}, NOW + 10)).toBe(5);
      expect(await rows.a2a.countFor("alice", { contextId: "c2" }, NOW + 10)).toBe(2);
      expect(await rows.a2a.countFor("bob", {}, NOW + 10)).toBe(1);
      await expect(rows.a2a.page("alice", {}, "not a cursor", 2, NOW)).rejects.toBeInstanceOf(InvalidCursor);
    });

    it("finds the unexpired, unended tasks parked on an approval, whoever asked", async () => {
      await rows.a2a.save(a2aWrite("a", { state: 6, parked: parkedOn("ap-1") }), NOW);
      await rows.a2a.save(a2aWrite("b", { principal: "bob", state: 6, parked: parkedOn("ap-1") }), NOW);
      await rows.a2a.save(a2aWrite("ended", { state: 6, parked: parkedOn("ap-1") }), NOW);
      await rows.a2a.save(a2aWrite("ended", { state: 5 }), NOW);
      await rows.a2a.save(a2aWrite("expired", { state: 6, parked: parkedOn("ap-1"), expiresAt: NOW + 5 }), NOW);
      const waiting = await rows.a2a.waitingFor("ap-1", NOW + 5);
      expect(waiting.map((row) => row.id).sort()).toEqual(["a", "b"]);
    });

    it("makes room at the cap by dropping the oldest ended tasks, never an open one, and sweeps expired ones", async () => {
      const cap = 5;
      expect(await rows.a2a.makeRoom("alice", cap, NOW, 1)).toBe(rows.roomBelowCap(cap, 0, 1));
      await rows.a2a.save(a2aWrite("open", { state: 6 }), NOW);
      for (let i = 0; i < 4; i++) await rows.a2a.save(a2aWrite(`ended${i}`), NOW + 1 + i);
      await rows.a2a.save(a2aWrite("expired", { expiresAt: NOW + 10 }), NOW);
      // At the cap: one must go, and one more (slack 1); of the room of two, this call takes one.
      expect(await rows.a2a.makeRoom("alice", cap, NOW + 10, 1)).toBe(2);
      expect(await rows.a2a.get("alice", "expired", NOW)).toBeUndefined();
      const left = (await rows.a2a.page("alice", {}, undefined, 10, NOW + 10)).items.map((row) => row.id).sort();
      expect(left).toEqual(["ended2", "ended3", "open"]);
      expect(await rows.a2a.makeRoom("alice", cap, NOW + 10, 1)).toBe(rows.roomBelowCap(cap, 3, 1));
    });

    it("refuses room when open tasks fill the cap, and deletes none of the caller's tasks", async () => {
      await rows.a2a.save(a2aWrite("ended"), NOW);
      await rows.a2a.save(a2aWrite("open1", { state: 6 }), NOW + 1);
      await rows.a2a.save(a2aWrite("open2", { state: 2 }), NOW + 2);
      expect(await rows.a2a.makeRoom("alice", 2, NOW + 3, 5)).toBe(0);
      expect(await rows.a2a.countFor("alice", {}, NOW + 3)).toBe(3);
      expect(await rows.a2a.makeRoom("bob", 2, NOW + 3)).toBe(rows.roomBelowCap(2, 0, 0));
    });

    it("deletes expired tasks and says how many went", async () => {
      await rows.a2a.save(a2aWrite("t1", { expiresAt: NOW + 10 }), NOW);
      await rows.a2a.save(a2aWrite("t2", { expiresAt: NOW + 20 }), NOW);
      await rows.a2a.save(a2aWrite("t3"), NOW);
      expect(await rows.a2a.deleteExpired(NOW + 20)).toBe(2);
      expect(await rows.a2a.deleteExpired(NOW + 20)).toBe(0);
      expect(await rows.a2a.countFor("alice", {}, NOW)).toBe(1);
    });
  });
});

/** Rows whose writes of a working task take 50 ms longer, as a slow connection's would. */
class SlowWorkingWrites extends PgA2ATaskRows {
  override async saveMany(writes: ReadonlyArray<A2ATaskWrite>, now: number): Promise<void> {
    if (writes.some((write) => write.state === TaskState.TASK_STATE_WORKING)) await new Promise((resolve) => setTimeout(resolve, 50));
    await super.saveMany(writes, now);
  }
}

describe("server tasks on PostgreSQL across two instances", () => {
  const other = postgresPool(database);
  beforeEach(async () => {
    await pg.pool.query("truncate mcp_tasks, a2a_tasks");
  });

  it("10 concurrent claims of one MCP task over two pools: exactly one wins, every round", async () => {
    const instances = [new PgMcpTaskRows(pg.db), new PgMcpTaskRows(other.db)];
    for (let round = 0; round < 5; round++) {
      const id = `t${round}`;
      await instances[0]!.insert(mcpTask(id), 100, NOW);
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => instances[i % 2]!.claim(id, NOW + 1000, NOW + 1)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      // Its lease lapsed: again one instance takes it over.
      const takeovers = await Promise.all(Array.from({ length: 10 }, (_, i) => instances[i % 2]!.claim(id, NOW + 5000, NOW + 2000)));
      expect(takeovers.filter(Boolean)).toHaveLength(1);
    }
  });

  it("20 concurrent MCP task creates over two pools keep the principal's cap exactly", async () => {
    const instances = [new PgMcpTaskRows(pg.db), new PgMcpTaskRows(other.db)];
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => instances[i % 2]!.insert(mcpTask(`t${i}`), 3, NOW)));
    expect(made.filter(Boolean)).toHaveLength(3);
    expect(await instances[1]!.countFor("alice", NOW)).toBe(3);
  });

  it("a caller at the cap admitted by both instances at once gets room on both, made once", async () => {
    const instances = [new PgA2ATaskRows(pg.db), new PgA2ATaskRows(other.db)];
    const cap = 20;
    await instances[0]!.saveMany(
      Array.from({ length: cap }, (_, i) => a2aWrite(`t${String(i).padStart(2, "0")}`, { state: i < 10 ? 3 : 6 })),
      NOW,
    );
    const granted = await Promise.all(Array.from({ length: 10 }, (_, i) => instances[i % 2]!.makeRoom("alice", cap, NOW + 1, 2)));
    // The first made room for three (one needed, slack two); the others found that room.
    expect(granted.every((room) => room > 0)).toBe(true);
    expect(await instances[0]!.countFor("alice", {}, NOW + 1)).toBe(cap - 3);
  });

  it("the A2A task store writes a call's states in order and another instance resumes its parked task", async () => {
    // Approvals are only read when a parked task is cancelled, which this test does not do.
    const approvalsDb = freshDatabase();
    try {
      const approvals = new ApprovalStore(approvalsDb.db);
      const a = new A2ATasks(new SlowWorkingWrites(pg.db), approvals, silentLogger, { maxPerOwner: 3 });
      const b = new A2ATasks(new PgA2ATaskRows(other.db), approvals, silentLogger, { maxPerOwner: 3 });
      const alice = new ServerCallContext({ user: { isAuthenticated: true, userName: "alice" } });
      const taskIn = (state: TaskState, id: string = randomUUID()) =>
        Task.fromJSON({ id, contextId: `ctx-${id}`, status: { state, timestamp: new Date().toISOString() }, history: [], artifacts: [] });

      expect(await a.admit("alice")).toBe(true);
      const task = taskIn(TaskState.TASK_STATE_SUBMITTED);
      await a.save(task, alice);
      await a.save(taskIn(TaskState.TASK_STATE_WORKING, task.id), alice);
      // The working state's write is slow and still under way when the call ends: the end lands after it.
      const listing = a.list(
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
      await a.save(taskIn(TaskState.TASK_STATE_COMPLETED, task.id), alice);
      expect((await listing).tasks.map((t) => t.id)).toEqual([task.id]);
      expect((await b.load(task.id, alice))!.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);

      const waiting = taskIn(TaskState.TASK_STATE_INPUT_REQUIRED);
      const parked = parkedOn("ap-9");
      expect(await a.admit("alice")).toBe(true);
      a.park(waiting.id, parked);
      await a.save(waiting, alice);
      expect((await b.load(waiting.id, alice))!.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(await b.parked("alice", waiting.id)).toEqual(parked);
      expect(await b.parked("bob", waiting.id)).toBeUndefined();

      // Two open tasks and one ended fill the cap of three: the other instance makes room by dropping the ended one.
      expect(await a.admit("alice")).toBe(true);
      await a.save(taskIn(TaskState.TASK_STATE_INPUT_REQUIRED), alice);
      expect(await b.admit("alice")).toBe(true);
      expect(await b.load(task.id, alice)).toBeUndefined();
      await b.save(taskIn(TaskState.TASK_STATE_AUTH_REQUIRED), alice);
      expect(await b.admit("alice")).toBe(false);
    } finally {
      approvalsDb.close();
    }
  });

  it("two MCP task services reading a task whose lease lapsed take it over once: its call runs once and it ends", async () => {
    // The registry and approvals live in SQLite on either dialect; only the task rows are shared here.
    const local = freshDatabase();
    try {
      const registry = new ToolRegistry(local.db);
      let runs = 0;
      await registry.add(
        { name: "issue_refund", description: "test", inputSchema: { type: "object" }, policy: { effects: "write" } },
        async () => {
          runs++;
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { refunded: true };
        },
      );
      // An executor each and no call record: only the claim stands between the instances and a second run.
      const approvals = new ApprovalStore(local.db);
      const instances = [
        new McpTasks(new PgMcpTaskRows(pg.db), new Executor({ registry }), approvals, silentLogger),
        new McpTasks(new PgMcpTaskRows(other.db), new Executor({ registry }), approvals, silentLogger),
      ];
      const now = Date.now();
      const rows = new PgMcpTaskRows(pg.db);
      await rows.insert(mcpTask("t1", { approvalId: null, expiresAt: now + HOUR }), 10, now);
      // The instance that claimed it stopped: its lease lapsed a second ago.
      await rows.claim("t1", now - 1000, now - 2000);
      const seen = await Promise.all(Array.from({ length: 10 }, (_, i) => instances[i % 2]!.get("alice", "t1")));
      expect(runs).toBe(1);
      // Each reader sees it working (taken over by one of them) or already completed.
      expect(seen.map((task) => task?.status).filter((status) => status !== "working" && status !== "completed")).toEqual([]);
      expect((await instances[1]!.get("alice", "t1"))?.status).toBe("completed");
      expect(await instances[0]!.result("alice", "t1")).toMatchObject({ structuredContent: { refunded: true } });
      expect(runs).toBe(1);
    } finally {
      local.close();
    }
  });
});
