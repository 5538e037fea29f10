import { randomUUID } from "node:crypto";
import { CallToolResultSchema, type McpError, UrlElicitationRequiredError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/experimental/tasks/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countRows } from "../support/database";
import { testServices } from "../support/services";
import { startMcpServer, type McpTestServer } from "../support/mcp-server";

let mcp: McpTestServer;
let dbFile: string;

beforeAll(async () => {
  mcp = await startMcpServer();
  dbFile = mcp.services.config.CONSOLE_DB;
});
afterAll(() => mcp.close());

// Order ids unique within the file's database: the run counts below are keyed on them.
let nextOrder = 1000;
const refund = (orderId = String(nextOrder++)) => ({ orderId, amount: 10 });
const refundsRun = (orderId: string) =>
  countRows(mcp.services.database, "call_results", "tool = 'issue_refund' and json_extract(args, '$.orderId') = ?", orderId);

describe("approvals over MCP: a client without tasks or URL elicitation", () => {
  it("gets an isError result with the approval's id, link and call key; the repeat after approval runs once", async () => {
    const client = await mcp.connect();
    const args = refund();
    const waiting = (await client.callTool({ name: "issue_refund", arguments: args })) as CallToolResult;
    expect(waiting.isError).toBe(true);
    const meta = waiting._meta as Record<string, string>;
    expect(meta["agui-console/error_kind"]).toBe("approval_pending");
    const approvalId = meta["agui-console/approval_id"]!;
    expect(meta["agui-console/approval_url"]).toBe(`${mcp.base}/approvals?approval=${approvalId}`);
    expect((waiting.content as Array<{ text: string }>)[0]!.text).toContain(approvalId);
    // The inbox sees the call, asked over MCP by the local principal.
    expect(await mcp.services.approvals.get(approvalId)).toMatchObject({ status: "pending", surface: "mcp", principal: "local" });

    const callKey = meta["agui-console/call_id"]!;
    const again = () => client.callTool({ name: "issue_refund", arguments: args, _meta: { "agui-console/call_id": callKey } });
    // Still undecided: the same approval, nothing ran.
    expect(((await again())._meta as Record<string, string>)["agui-console/approval_id"]).toBe(approvalId);
    expect(refundsRun(args.orderId)).toBe(0);

    expect((await mcp.decide(approvalId, { approved: true })).status).toBe(200);
    const first = await again();
    const second = await again();
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ orderId: args.orderId, status: "issued" });
    expect(second.structuredContent).toEqual(first.structuredContent);
    expect(refundsRun(args.orderId)).toBe(1);
  });

  it("a denied call is answered as denied, and never runs", async () => {
    const client = await mcp.connect();
    const args = refund();
    const key = `deny-${randomUUID()}`;
    const call = () => client.callTool({ name: "issue_refund", arguments: args, _meta: { "agui-console/call_id": key } });
    const approvalId = ((await call())._meta as Record<string, string>)["agui-console/approval_id"]!;
    await mcp.decide(approvalId, { approved: false, reason: "not this one" });
    const denied = await call();
    expect(denied.isError).toBe(true);
    expect(denied._meta).toEqual({ "agui-console/error_kind": "denied" });
    expect(refundsRun(args.orderId)).toBe(0);
  });

  it("scopes call keys by principal: another caller's same key reaches its own approval, not the first caller's", async () => {
    const alice = await mcp.connect({ token: (await mcp.services.tokens.create(`alice-${randomUUID()}`, ["mcp"])).token });
    const bob = await mcp.connect({ token: (await mcp.services.tokens.create(`bob-${randomUUID()}`, ["mcp"])).token });
    const args = refund();
    const call = (client: typeof alice) =>
      client.callTool({ name: "issue_refund", arguments: args, _meta: { "agui-console/call_id": "shared-key" } });
    const aliceApproval = ((await call(alice))._meta as Record<string, string>)["agui-console/approval_id"]!;
    await mcp.decide(aliceApproval, { approved: true });
    const bobs = await call(bob);
    expect(bobs.isError).toBe(true);
    expect((bobs._meta as Record<string, string>)["agui-console/approval_id"]).not.toBe(aliceApproval);
    expect(refundsRun(args.orderId)).toBe(0);
    expect((await call(alice)).structuredContent).toMatchObject({ status: "issued" });
  });
});

describe("approvals over MCP: a client that sends no call key (its model fills in the arguments, nothing else)", () => {
  const approvalOf = (result: unknown) => ((result as CallToolResult)._meta as Record<string, string>)["agui-console/approval_id"];

  it("the same call repeated reaches its approval; once approved it runs once, and the next such call asks again", async () => {
    const client = await mcp.connect();
    const args = refund();
    const call = () => client.callTool({ name: "issue_refund", arguments: args });
    const approvalId = approvalOf(await call())!;
    expect(approvalOf(await call())).toBe(approvalId);
    expect(
      countRows(mcp.services.database, "approvals", "tool = 'issue_refund' and json_extract(args, '$.orderId') = ?", args.orderId),
    ).toBe(1);
    // Another call of the tool (other arguments) is another approval.
    expect(approvalOf(await client.callTool({ name: "issue_refund", arguments: refund() }))).not.toBe(approvalId);

    await mcp.decide(approvalId, { approved: true });
    const ran = await call();
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ orderId: args.orderId, status: "issued" });
    expect(refundsRun(args.orderId)).toBe(1);
    // That call had its answer: the same arguments again are a new call, which waits for a person.
    const next = approvalOf(await call());
    expect(next).toBeDefined();
    expect(next).not.toBe(approvalId);
    expect(refundsRun(args.orderId)).toBe(1);
  });

  it("a denied call is answered as denied once; the call made again after that asks again", async () => {
    const client = await mcp.connect();
    const args = refund();
    const call = () => client.callTool({ name: "issue_refund", arguments: args });
    const approvalId = approvalOf(await call())!;
    await mcp.decide(approvalId, { approved: false, reason: "not this one" });
    const denied = await call();
    expect(denied._meta).toEqual({ "agui-console/error_kind": "denied" });
    expect(approvalOf(await call())).not.toBe(approvalId);
    expect(refundsRun(args.orderId)).toBe(0);
  });

  it("another principal's identical call is a call of its own, with its own approval", async () => {
    const alice = await mcp.connect({ token: (await mcp.services.tokens.create(`alice-${randomUUID()}`, ["mcp"])).token });
    const bob = await mcp.connect({ token: (await mcp.services.tokens.create(`bob-${randomUUID()}`, ["mcp"])).token });
    const args = refund();
    const aliceApproval = approvalOf(await alice.callTool({ name: "issue_refund", arguments: args }))!;
    await mcp.decide(aliceApproval, { approved: true });
    const bobs = await bob.callTool({ name: "issue_refund", arguments: args });
    expect(approvalOf(bobs)).toBeDefined();
    expect(approvalOf(bobs)).not.toBe(aliceApproval);
    expect(refundsRun(args.orderId)).toBe(0);
  });

  it("a URL-elicitation client repeating its request as it was after the decision runs it once", async () => {
    const client = await mcp.connect({ capabilities: { elicitation: { url: {} } } });
    const args = refund();
    const call = () => client.callTool({ name: "issue_refund", arguments: args });
    const error = (await call().catch((e: unknown) => e)) as UrlElicitationRequiredError;
    const approvalId = error.elicitations[0]!.elicitationId;
    expect(((await call().catch((e: unknown) => e)) as UrlElicitationRequiredError).elicitations[0]!.elicitationId).toBe(approvalId);
    await mcp.decide(approvalId, { approved: true });
    expect((await call()).structuredContent).toMatchObject({ orderId: args.orderId, status: "issued" });
    expect(refundsRun(args.orderId)).toBe(1);
  });
});

describe("approvals over MCP: a client that declared URL elicitation", () => {
  it("gets -32042 pointing at the approval's page; the repeat with its call key after approval runs once", async () => {
    const client = await mcp.connect({ capabilities: { elicitation: { url: {} } } });
    const args = refund();
    const call = () => client.callTool({ name: "issue_refund", arguments: args, _meta: { "agui-console/call_id": "url-key" } });
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect((error as McpError).code).toBe(-32042);
    const [elicitation] = (error as UrlElicitationRequiredError).elicitations;
    const approvalId = elicitation!.elicitationId;
    expect(elicitation).toMatchObject({ mode: "url", url: `${mcp.base}/approvals?approval=${approvalId}` });
    expect((await mcp.services.approvals.get(approvalId))?.surface).toBe("mcp");

    await mcp.decide(approvalId, { approved: true });
    const first = await call();
    expect(first.structuredContent).toMatchObject({ orderId: args.orderId, status: "issued" });
    expect((await call()).structuredContent).toEqual(first.structuredContent);
    expect(refundsRun(args.orderId)).toBe(1);
  });
});

describe("approvals over MCP: a client that asks for a task", () => {
  it("waits in input_required until the operator approves in the inbox, then completes with the result", async () => {
    const client = await mcp.connect();
    await client.listTools();
    const args = refund();
    const seen: string[] = [];
    let result: CallToolResult | undefined;
    for await (const message of client.experimental.tasks.callToolStream({ name: "issue_refund", arguments: args }, undefined, {
      task: { ttl: 60_000 },
    })) {
      if (message.type === "taskCreated") {
        seen.push(`created:${message.task.status}`);
        const [approval] = (await mcp.services.approvals.list({ status: ["pending"], surface: "mcp", tool: "issue_refund" })).items;
        expect(approval?.args).toEqual(args);
        // The operator decides a moment later, through the REST API.
        setTimeout(() => void mcp.decide(approval!.id, { approved: true }), 200);
      } else if (message.type === "taskStatus") seen.push(message.task.status);
      else if (message.type === "result") result = message.result as CallToolResult;
      else throw message.error;
    }
    expect(seen[0]).toBe("created:input_required");
    expect(seen).toContain("input_required");
    expect(result?.structuredContent).toMatchObject({ orderId: args.orderId, status: "issued" });
    expect(refundsRun(args.orderId)).toBe(1);
    // The task had its answer: the same call made again without a key is a new one and asks again.
    const again = (await client.callTool({ name: "issue_refund", arguments: args })) as CallToolResult;
    expect((again._meta as Record<string, string>)["agui-console/error_kind"]).toBe("approval_pending");
    expect(refundsRun(args.orderId)).toBe(1);
  });

  it("answers tasks/get, list, result and cancel from SQLite: after a restart, and only to the task's own principal", async () => {
    const token = (await mcp.services.tokens.create(`tasks-${randomUUID()}`, ["mcp"])).token;
    const client = await mcp.connect({ token });
    const args = refund();
    const created = await client.request(
      { method: "tools/call", params: { name: "issue_refund", arguments: args, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    expect(created.task.status).toBe("input_required");
    const taskId = created.task.taskId;
    // A second connection of the same caller sees it: the task is not tied to a session.
    const other = await mcp.connect({ token });
    expect((await other.experimental.tasks.getTask(taskId)).status).toBe("input_required");

    // Another console process over the same database file answers, and the operator decides there.
    const restarted = await startMcpServer({ existing: testServices({ CONSOLE_DB: dbFile, AGENT_STREAM_DELAY_MS: "0" }) });
    try {
      const again = await restarted.connect({ token });
      expect((await again.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(taskId);
      const stranger = await restarted.connect({
        token: (await restarted.services.tokens.create(`stranger-${randomUUID()}`, ["mcp"])).token,
      });
      expect(await stranger.experimental.tasks.getTask(taskId).catch((e: unknown) => (e as McpError).code)).toBe(-32602);
      expect((await stranger.experimental.tasks.listTasks()).tasks).toEqual([]);

      const approvalId = (
        await restarted.services.approvals.list({ status: ["pending"], surface: "mcp", tool: "issue_refund" })
      ).items.find((a) => (a.args as { orderId: string }).orderId === args.orderId)!.id;
      expect((await restarted.decide(approvalId, { approved: true })).status).toBe(200);
      const task = await again.experimental.tasks.getTask(taskId);
      expect(task.status).toBe("completed");
      const result = (await again.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ orderId: args.orderId, status: "issued" });
      expect(result._meta).toMatchObject({ "io.modelcontextprotocol/related-task": { taskId } });
      // Read again from the first process: the same result, and the refund ran once.
      expect(((await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult).structuredContent).toEqual(
        result.structuredContent,
      );
      expect(refundsRun(args.orderId)).toBe(1);
    } finally {
      await restarted.close();
    }
  });

  it("tasks/cancel ends a waiting task and withdraws its approval", async () => {
    const client = await mcp.connect();
    const args = refund();
    const { task } = await client.request(
      { method: "tools/call", params: { name: "issue_refund", arguments: args, task: {} } },
      CreateTaskResultSchema,
    );
    const approval = (await mcp.services.approvals.list({ status: ["pending"], surface: "mcp", tool: "issue_refund" })).items.find(
      (a) => (a.args as { orderId: string }).orderId === args.orderId,
    )!;
    expect((await client.experimental.tasks.cancelTask(task.taskId)).status).toBe("cancelled");
    expect((await mcp.services.approvals.get(approval.id))?.status).toBe("cancelled");
    const cancelledAgain = await client.experimental.tasks.cancelTask(task.taskId).catch((e: unknown) => (e as McpError).code);
    expect(cancelledAgain).toBe(-32602);
    expect(refundsRun(args.orderId)).toBe(0);
  });
});
