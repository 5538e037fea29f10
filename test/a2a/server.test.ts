import { randomUUID } from "node:crypto";
import { Message, TaskState, type SendMessageRequest, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { A2ATaskRows } from "@/lib/db/a2a-tasks";
import { countRows } from "../support/database";
import { startA2AServer, type A2ATestServer } from "../support/a2a-server";
import { testServices } from "../support/services";

let a2a: A2ATestServer;
let client: Client;

beforeAll(async () => {
  a2a = await startA2AServer();
  await a2a.services.registry.add(
    { name: "slow_wait", description: "Waits until cancelled", inputSchema: { type: "object" }, policy: { timeoutMs: 60_000 } },
    (_args, { signal }) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")))),
  );
  await a2a.services.registry.add(
    { name: "slow_done", description: "Answers after a moment", inputSchema: { type: "object" } },
    () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), 300)),
  );
  client = await a2a.connect();
});
afterAll(() => a2a.close());

// Order ids unique within the file's database: the run counts below are keyed on them.
let nextOrder = 1000;
const newOrderId = () => String(nextOrder++);
const refund = () => ({ orderId: newOrderId(), amount: 10 });
const refundsRun = (orderId: string) =>
  countRows(a2a.services.database, "call_results", "tool = 'issue_refund' and json_extract(args, '$.orderId') = ?", orderId);

function send(parts: unknown[], task?: { taskId: string; contextId: string }, returnImmediately = false): SendMessageRequest {
  return {
    tenant: "",
    message: Message.fromJSON({ messageId: randomUUID(), role: "ROLE_USER", parts, ...task }),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  };
}
/** ListTasks for every task of the caller, on one page. */
const EVERY_TASK = {
  tenant: "",
  contextId: "",
  status: TaskState.TASK_STATE_UNSPECIFIED,
  pageSize: 100,
  pageToken: "",
  historyLength: undefined,
  statusTimestampAfter: undefined,
  includeArtifacts: false,
};
const call = (tool: string, args: Record<string, unknown>) => send([{ data: { tool, arguments: args } }]);
const onTask = (task: Task, parts: unknown[] = [{ text: "go on" }]) => send(parts, { taskId: task.id, contextId: task.contextId });

async function asTask(pending: Promise<unknown>): Promise<Task> {
  const result = (await pending) as Task;
  expect(result.id).toBeTruthy();
  return result;
}

/** The approval a waiting task names in its status message's data part. */
function approvalOf(task: Task): { approval_id: string; approval_url: string; tool: string } {
  const data = task.status!.message!.parts.find((p) => p.content?.$case === "data")!.content as {
    value: { approvals: Array<{ approval_id: string; approval_url: string; tool: string }> };
  };
  return data.value.approvals[0]!;
}

describe("A2A server: the agent card", () => {
  it("serves the SDK's JSON form: interfaces in 1.0 and 0.3, streaming, one skill per tool and the schema extension", async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe("agui-console");
    expect(card.version).toBe(a2a.services.version);
    expect(card.supportedInterfaces).toEqual([
      { url: `${a2a.base}/api/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${a2a.base}/api/a2a`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ]);
    expect(card.capabilities?.streaming).toBe(true);
    const skill = card.skills.find((s) => s.id === "issue_refund");
    expect(skill).toMatchObject({ id: "issue_refund", name: "issue_refund", inputModes: ["application/json"] });
    expect(skill!.tags.length).toBeGreaterThan(0);
    expect(card.skills.map((s) => s.id)).toContain("slow_wait");
    const extension = card.capabilities!.extensions.find((e) => e.uri === "urn:agui-console:a2a:tools:v1");
    expect((extension!.params as { tools: Record<string, unknown> }).tools.issue_refund).toMatchObject({
      type: "object",
      required: ["orderId", "amount"],
    });
    // A loopback console takes anonymous local callers: no scheme is required.
    expect(card.securitySchemes ?? {}).toEqual({});

    // Raw: required fields of the v1 JSON, and the 0.3 fields only for a client that asked for no version.
    const v1 = (await (await fetch(`${a2a.base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })).json()) as Record<
      string,
      unknown
    >;
    for (const field of [
      "name",
      "description",
      "supportedInterfaces",
      "version",
      "capabilities",
      "defaultInputModes",
      "defaultOutputModes",
      "skills",
    ])
      expect(v1, field).toHaveProperty(field);
    expect(v1).not.toHaveProperty("url");
    const legacy = await fetch(`${a2a.base}/.well-known/agent-card.json`);
    expect(legacy.headers.get("vary")).toContain("A2A-Version");
    expect(await legacy.json()).toMatchObject({ url: `${a2a.base}/api/a2a`, preferredTransport: "JSONRPC", protocolVersion: "0.3.0" });
  });

  it("names the bearer scheme on a loopback console reached by a name in ALLOWED_HOSTS (a proxy in front), which wants a token", async () => {
    const proxied = await startA2AServer({ env: { ALLOWED_HOSTS: "console.test" } });
    try {
      const cardAt = (host: string) =>
        proxied.api.a2a.card(new Request(`http://${host}/.well-known/agent-card.json`, { headers: { host, "a2a-version": "1.0" } }));
      const viaProxy = (await (await cardAt("console.test")).json()) as Record<string, unknown>;
      expect(viaProxy.securitySchemes).toHaveProperty("bearer");
      const local = (await (await cardAt("127.0.0.1")).json()) as Record<string, unknown>;
      expect(local.securitySchemes ?? {}).toEqual({});
      // As the card says: no token through that name is a 401.
      const anonymous = await proxied.api.a2a.post(
        new Request("http://console.test/api/a2a", {
          method: "POST",
          headers: { host: "console.test", "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
        }),
      );
      expect(anonymous.status).toBe(401);
    } finally {
      await proxied.close();
    }
  });

  it("names the bearer scheme when the console is not on loopback, and refuses a Host it does not serve", async () => {
    const open = await startA2AServer({ env: { HOST: "0.0.0.0", ALLOWED_HOSTS: "console.test" } });
    try {
      const json = (await (
        await fetch(`${open.base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })
      ).json()) as Record<string, unknown>;
      expect(json.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: expect.any(String) } } });
      expect(json.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
      // A 0.3 client reads the scheme in 0.3's form.
      const legacy = (await (await fetch(`${open.base}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
      expect(legacy.securitySchemes).toEqual({ bearer: { type: "http", scheme: "bearer", description: expect.any(String) } });
      expect(legacy.security).toEqual([{ bearer: [] }]);
      expect(legacy).not.toHaveProperty("securityRequirements");
      const foreign = await open.api.a2a.card(
        new Request("http://evil.test/.well-known/agent-card.json", { headers: { host: "evil.test" } }),
      );
      expect(foreign.status).toBe(421);
      // No token: 401 before any JSON-RPC, with the console's error body.
      const anonymous = await fetch(`${open.base}/api/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0", host: "console.test" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
      });
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ error: { code: "unauthenticated" } });
    } finally {
      await open.close();
    }
  });
});

describe("A2A server: calls with the 1.3 client", async () => {
  it("SendMessage runs a {tool, arguments} data part through the executor and completes with the result", async () => {
    const task = await asTask(client.sendMessage(call("calculate", { expression: "6*7" })));
    expect(task.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: expect.objectContaining({ result: 42 }) });
    const again = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
    expect(again.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(again.artifacts).toEqual(task.artifacts);
  });

  it("a new task's call reads no task row and no call record: its task id and call id were made up for it", async () => {
    const taskReads = vi.spyOn(A2ATaskRows.prototype, "get");
    const recordReads = vi.spyOn(a2a.services.callHistory, "get");
    try {
      const task = await asTask(client.sendMessage(call("calculate", { expression: "2+3" })));
      expect(task.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: expect.objectContaining({ result: 5 }) });
      expect(taskReads).not.toHaveBeenCalled();
      expect(recordReads).not.toHaveBeenCalled();
      // Once written, the task is read from its row again.
      expect((await client.getTask({ tenant: "", id: task.id, historyLength: undefined })).status!.state).toBe(
        TaskState.TASK_STATE_COMPLETED,
      );
      expect(taskReads).toHaveBeenCalledTimes(1);
    } finally {
      taskReads.mockRestore();
      recordReads.mockRestore();
    }
  });

  it("streams the task, working, the artifact and completed", async () => {
    const seen: string[] = [];
    for await (const event of client.sendMessageStream(call("calculate", { expression: "1+2" }))) {
      const payload = event.payload;
      if (payload?.$case === "statusUpdate") seen.push(`status:${TaskState[payload.value.status!.state]}`);
      else if (payload) seen.push(payload.$case);
    }
    expect(seen).toEqual(["task", "status:TASK_STATE_WORKING", "artifactUpdate", "status:TASK_STATE_COMPLETED"]);
  });

  it("answers a text message with the default agent's reply", async () => {
    const task = await asTask(client.sendMessage(send([{ text: "hello" }])));
    expect(task.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const reply = task.artifacts[0]!.parts[0]!.content;
    expect(reply?.$case).toBe("text");
    expect((reply as { value: string }).value.length).toBeGreaterThan(0);
  });

  it("an unknown tool or a malformed part is rejected and runs nothing", async () => {
    const unknown = await asTask(client.sendMessage(call("no_such_tool", {})));
    expect(unknown.status!.state).toBe(TaskState.TASK_STATE_REJECTED);
    const bad = await asTask(client.sendMessage(send([{ data: { tool: 7 } }])));
    expect(bad.status!.state).toBe(TaskState.TASK_STATE_REJECTED);
  });

  it("SubscribeToTask streams a running task to its end, and answers a waiting task with its state", async () => {
    const events = async (id: string) => {
      const seen: string[] = [];
      for await (const event of client.resubscribeTask({ tenant: "", id })) {
        const payload = event.payload!;
        if (payload.$case === "statusUpdate") seen.push(`status ${TaskState[payload.value.status!.state]}`);
        else if (payload.$case === "task") seen.push(`task ${TaskState[payload.value.status!.state]}`);
        else seen.push(payload.$case);
      }
      return seen;
    };
    const running = await asTask(
      client.sendMessage({
        ...call("slow_done", {}),
        configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
      }),
    );
    const streamed = await events(running.id);
    expect(streamed[0]).toMatch(/^task /);
    expect(streamed).toContain("artifactUpdate");
    expect(streamed.at(-1)).toBe("status TASK_STATE_COMPLETED");

    const waiting = await asTask(client.sendMessage(call("issue_refund", refund())));
    expect(await events(waiting.id)).toEqual(["task TASK_STATE_INPUT_REQUIRED"]);
    // Another caller cannot subscribe to it.
    const stranger = await a2a.connect({ token: (await a2a.services.tokens.create(`sub-${randomUUID()}`, ["a2a"])).token });
    await expect(
      (async () => {
        for await (const event of stranger.resubscribeTask({ tenant: "", id: waiting.id })) void event;
      })(),
    ).rejects.toThrow(/not found/i);
  });

  it("lists the caller's tasks and cancels a running one (the executor publishes canceled)", async () => {
    const running = await asTask(
      client.sendMessage({
        ...call("slow_wait", {}),
        configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
      }),
    );
    const cancelled = await client.cancelTask({ tenant: "", id: running.id, metadata: undefined });
    expect(cancelled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
    const listed = await client.listTasks(EVERY_TASK);
    expect(listed.tasks.map((t) => t.id)).toContain(running.id);
    expect(listed.tasks.find((t) => t.id === running.id)!.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe("A2A server: approvals", () => {
  it("input-required names the approval and its page; after an operator approves, the next message completes it, once", async () => {
    const args = refund();
    const waiting = await asTask(client.sendMessage(call("issue_refund", args)));
    expect(waiting.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const named = approvalOf(waiting);
    expect(named.approval_url).toBe(`${a2a.base}/approvals?approval=${named.approval_id}`);
    expect(await a2a.services.approvals.get(named.approval_id)).toMatchObject({
      status: "pending",
      surface: "a2a",
      principal: "local",
      tool: "issue_refund",
    });

    // Undecided: still waiting on the same approval, nothing ran.
    const still = await asTask(client.sendMessage(onTask(waiting)));
    expect(still.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(approvalOf(still).approval_id).toBe(named.approval_id);
    expect(refundsRun(args.orderId)).toBe(0);

    expect((await a2a.decide(named.approval_id, { approved: true })).status).toBe(200);
    const done = await asTask(client.sendMessage(onTask(waiting)));
    expect(done.id).toBe(waiting.id);
    expect(done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]!.parts[0]!.content).toEqual({
      $case: "data",
      value: expect.objectContaining({ orderId: args.orderId, status: "issued" }),
    });
    expect(refundsRun(args.orderId)).toBe(1);
    // The task has ended: a further message is refused by the SDK.
    await expect(client.sendMessage(onTask(waiting))).rejects.toThrow(/terminal/);
  });

  it("a chat turn's call waits as an A2A approval; once approved, the agent goes on and the client gets its final answer", async () => {
    const orderId = newOrderId();
    const waiting = await asTask(client.sendMessage(send([{ text: `refund order ${orderId} for 20 EUR` }])));
    expect(waiting.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const named = approvalOf(waiting);
    expect(await a2a.services.approvals.get(named.approval_id)).toMatchObject({ status: "pending", surface: "a2a", tool: "issue_refund" });

    expect((await a2a.decide(named.approval_id, { approved: true })).status).toBe(200);
    const done = await asTask(client.sendMessage(onTask(waiting)));
    expect(done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(refundsRun(orderId)).toBe(1);
    // The agent's own words after the call, not the bare tool result.
    const last = done.artifacts.at(-1)!.parts[0]!.content;
    expect(last?.$case).toBe("text");
    expect((last as { value: string }).value).toMatch(new RegExp(`Refund .* issued: 20 EUR for order ${orderId}`));
  });

  it("a denied call ends the task rejected and never runs", async () => {
    const args = refund();
    const waiting = await asTask(client.sendMessage(call("issue_refund", args)));
    await a2a.decide(approvalOf(waiting).approval_id, { approved: false, reason: "not this one" });
    const denied = await asTask(client.sendMessage(onTask(waiting)));
    expect(denied.status!.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(refundsRun(args.orderId)).toBe(0);
  });

  it("cancelling a waiting task withdraws its approval", async () => {
    const waiting = await asTask(client.sendMessage(call("issue_refund", refund())));
    const cancelled = await client.cancelTask({ tenant: "", id: waiting.id, metadata: undefined });
    expect(cancelled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await a2a.services.approvals.get(approvalOf(waiting).approval_id))?.status).toBe("cancelled");
  });

  it("an A2A client's own answer counts only when client approval is on, once, and for the task's own approval", async () => {
    const args = refund();
    const waiting = await asTask(client.sendMessage(call("issue_refund", args)));
    const { approval_id } = approvalOf(waiting);
    const refused = await asTask(client.sendMessage(onTask(waiting, [{ data: { approval_id, approved: true } }])));
    expect(refused.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect((await a2a.services.approvals.get(approval_id))?.status).toBe("pending");

    const trusting = await startA2AServer({ a2a: { clientApproval: true } });
    try {
      const trusted = await trusting.connect();
      const own = await asTask(trusted.sendMessage(call("issue_refund", args)));
      const other = await asTask(trusted.sendMessage(call("issue_refund", refund())));
      // Another task's approval is not this task's answer.
      const wrong = await asTask(
        trusted.sendMessage(onTask(own, [{ data: { approval_id: approvalOf(other).approval_id, approved: true } }])),
      );
      expect(wrong.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect((await trusting.services.approvals.get(approvalOf(other).approval_id))?.status).toBe("pending");
      const approved = await asTask(
        trusted.sendMessage(onTask(own, [{ data: { approval_id: approvalOf(own).approval_id, approved: true } }])),
      );
      expect(approved.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(await trusting.services.approvals.get(approvalOf(own).approval_id)).toMatchObject({
        status: "consumed",
        decidedBy: "a2a-client:local",
      });
    } finally {
      await trusting.close();
    }
  });
});

describe("A2A server: tasks in SQLite, scoped by principal", async () => {
  /** A console of its own, to be stopped (its server and its database) before another starts over its file. */
  const firstConsole = () => startA2AServer();
  async function restart(first: A2ATestServer): Promise<A2ATestServer> {
    const file = first.services.config.CONSOLE_DB;
    await first.close();
    first.services.close();
    return startA2AServer({ existing: testServices({ CONSOLE_DB: file, AGENT_STREAM_DELAY_MS: "0" }) });
  }
  const runsOf = (server: A2ATestServer, orderId: string) =>
    countRows(server.services.database, "call_results", "tool = 'issue_refund' and json_extract(args, '$.orderId') = ?", orderId);

  it("a task waiting for approval survives a restart: the console started again over the same file resumes it after approval", async () => {
    const first = await firstConsole();
    const token = (await first.services.tokens.create(`restart-${randomUUID()}`, ["a2a"])).token;
    const before = await first.connect({ token });
    const args = refund();
    const waiting = await asTask(before.sendMessage(call("issue_refund", args)));
    expect(waiting.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const restarted = await restart(first);
    try {
      const after = await restarted.connect({ token });
      expect((await after.getTask({ tenant: "", id: waiting.id, historyLength: undefined })).status!.state).toBe(
        TaskState.TASK_STATE_INPUT_REQUIRED,
      );
      // Another principal sees nothing of it.
      const stranger = await restarted.connect({
        token: (await restarted.services.tokens.create(`stranger-${randomUUID()}`, ["a2a"])).token,
      });
      await expect(stranger.getTask({ tenant: "", id: waiting.id, historyLength: undefined })).rejects.toThrow(/not found/i);
      await expect(stranger.sendMessage(onTask(waiting))).rejects.toThrow(/not found/i);

      expect((await restarted.decide(approvalOf(waiting).approval_id, { approved: true })).status).toBe(200);
      const done = await asTask(after.sendMessage(onTask(waiting)));
      expect(done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(runsOf(restarted, args.orderId)).toBe(1);
    } finally {
      await restarted.close();
      restarted.services.close();
    }
  });

  it("a task left working by a console that stopped reads as failed; one another console is still running reads as working", async () => {
    const tasks = { heartbeatMs: 40, abandonedAfterMs: 300 };
    const first = await startA2AServer({ a2a: { tasks } });
    await first.services.registry.add(
      { name: "never_done", description: "Never answers", inputSchema: { type: "object" }, policy: { timeoutMs: 60_000 } },
      () => new Promise(() => {}),
    );
    const second = await startA2AServer({
      existing: testServices({ CONSOLE_DB: first.services.config.CONSOLE_DB, AGENT_STREAM_DELAY_MS: "0" }),
      a2a: { tasks },
    });
    try {
      const running = await asTask(
        (await first.connect()).sendMessage({
          ...call("never_done", {}),
          configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
        }),
      );
      const readBySecond = async () =>
        (await (await second.connect()).getTask({ tenant: "", id: running.id, historyLength: undefined })).status!;
      // Past the time after which a silent task counts as abandoned, the first console's heartbeat keeps it working.
      await new Promise((resolve) => setTimeout(resolve, 450));
      expect((await readBySecond()).state).toBe(TaskState.TASK_STATE_WORKING);

      await first.close();
      first.services.close();
      await new Promise((resolve) => setTimeout(resolve, 450));
      const status = await readBySecond();
      expect(status.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(JSON.stringify(status.message)).toContain("The console stopped while this task ran");
      // Written so: every reader, and the list, sees the same end.
      expect(countRows(second.services.database, "a2a_tasks", "id = ? and state = ?", running.id, TaskState.TASK_STATE_FAILED)).toBe(1);
      const listed = await (await second.connect()).listTasks(EVERY_TASK);
      expect(listed.tasks.find((t) => t.id === running.id)!.status!.state).toBe(TaskState.TASK_STATE_FAILED);
    } finally {
      await second.close();
      second.services.close();
    }
  });

  it("a chat task waiting for approval resumes on a restarted console: the agent goes on from the parked conversation", async () => {
    const first = await firstConsole();
    const token = (await first.services.tokens.create(`chat-restart-${randomUUID()}`, ["a2a"])).token;
    const orderId = newOrderId();
    const waiting = await asTask((await first.connect({ token })).sendMessage(send([{ text: `refund order ${orderId} for 5 EUR` }])));
    expect(waiting.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const restarted = await restart(first);
    try {
      const after = await restarted.connect({ token });
      expect((await restarted.decide(approvalOf(waiting).approval_id, { approved: true })).status).toBe(200);
      const done = await asTask(after.sendMessage(onTask(waiting)));
      expect(done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect((done.artifacts.at(-1)!.parts[0]!.content as { value: string }).value).toContain(`5 EUR for order ${orderId}`);
      expect(runsOf(restarted, orderId)).toBe(1);
    } finally {
      await restarted.close();
      restarted.services.close();
    }
  });

  it("a denied call of a chat turn ends the task rejected; the agent is not asked again", async () => {
    const orderId = newOrderId();
    const waiting = await asTask(client.sendMessage(send([{ text: `refund order ${orderId} for 7 EUR` }])));
    await a2a.decide(approvalOf(waiting).approval_id, { approved: false, reason: "no" });
    const denied = await asTask(client.sendMessage(onTask(waiting)));
    expect(denied.status!.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(denied.artifacts.length).toBe(waiting.artifacts.length);
    expect(refundsRun(orderId)).toBe(0);
  });

  it("caps the tasks one caller holds: the oldest ended go first, open ones refuse a new task", async () => {
    const capped = await startA2AServer({ a2a: { tasks: { maxPerOwner: 2 } } });
    try {
      const c = await capped.connect();
      await asTask(c.sendMessage(call("calculate", { expression: "1+1" })));
      await asTask(c.sendMessage(call("calculate", { expression: "2+2" })));
      await asTask(c.sendMessage(call("calculate", { expression: "3+3" })));
      expect(countRows(capped.services.database, "a2a_tasks")).toBe(2);
      await asTask(c.sendMessage(call("issue_refund", refund())));
      await asTask(c.sendMessage(call("issue_refund", refund())));
      await expect(c.sendMessage(call("calculate", { expression: "4+4" }))).rejects.toThrow(/open tasks/);
      expect(countRows(capped.services.database, "a2a_tasks")).toBe(2);
    } finally {
      await capped.close();
    }
  });

  it("refuses bodies and data parts over their limits before any task exists", async () => {
    const small = await startA2AServer({ a2a: { maxBodyBytes: 4096, maxDataBytes: 512 } });
    try {
      const post = (body: unknown) =>
        fetch(`${small.base}/api/a2a`, {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify(body),
        });
      const big = await post({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x".repeat(5000) }] } },
      });
      expect(big.status).toBe(413);
      const part = await post({
        jsonrpc: "2.0",
        id: 2,
        method: "SendMessage",
        params: {
          message: {
            messageId: "m",
            role: "ROLE_USER",
            parts: [{ data: { tool: "calculate", arguments: { expression: "1".repeat(600) } } }],
          },
        },
      });
      expect(await part.json()).toMatchObject({ id: 2, error: { code: -32600, data: { kind: "payload_too_large" } } });
      const wrongType = await fetch(`${small.base}/api/a2a`, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
      expect(wrongType.status).toBe(415);
      expect(countRows(small.services.database, "a2a_tasks")).toBe(0);
    } finally {
      await small.close();
    }
  });
});
