import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPending, type CallOutcome } from "@/lib/execution";
import { importA2A } from "@/lib/integrations/a2a/import-a2a";
import type { SqliteServices } from "@/lib/services";
import { countRows } from "../support/database";
import { startA2AServer, type A2ATestServer } from "../support/a2a-server";
import { testServices } from "../support/services";
import { RED_DOT_PNG } from "../support/media";

// Two consoles on 127.0.0.1: `remote` serves its registry over A2A (card and /api/a2a), `local`
// imports it and calls its tools. A call that waits for remote's operator is a ToolError here;
// once that operator decides through remote's REST approvals API, the same call made again
// resumes the remote task and gets its outcome.

let remote: A2ATestServer;
let local: SqliteServices;

const PNG = RED_DOT_PNG;
/** What the remote's `picture` tool answers: MCP content blocks, as an imported MCP tool's image is. */
const PICTURE = {
  content: [
    { type: "text", text: "A red dot:" },
    { type: "image", data: PNG, mimeType: "image/png" },
    { type: "resource", resource: { uri: "file:///dot.txt", mimeType: "text/plain", text: "one red pixel" } },
    { type: "resource", resource: { uri: "file:///dot.bin", mimeType: "application/octet-stream", blob: "AAEC" } },
    { type: "resource_link", uri: "https://example.com/dot.png", name: "dot.png", mimeType: "image/png" },
  ],
};

beforeAll(async () => {
  remote = await startA2AServer();
  await remote.services.registry.add(
    { name: "picture", description: "Draws a dot", inputSchema: { type: "object", properties: {} } },
    () => PICTURE,
  );
  local = testServices({ OUTBOUND_ALLOW: "127.0.0.1/32" });
});
afterAll(async () => {
  local.close();
  await remote.close();
});

const ok = (outcome: CallOutcome) => {
  if (isPending(outcome) || !outcome.ok) throw new Error(`the call did not succeed: ${JSON.stringify(outcome)}`);
  return outcome.value;
};
const failure = (outcome: CallOutcome) => {
  if (isPending(outcome) || outcome.ok) throw new Error(`the call did not fail: ${JSON.stringify(outcome)}`);
  return outcome.error;
};
const pendingRemote = async () => (await remote.services.approvals.list({ status: "pending" })).items;

describe("one console imports another's registry over A2A", () => {
  it("imports one typed tool per exported tool, with the remote's argument schemas", async () => {
    const { tools, source } = await importA2A(local, { url: remote.base, prefix: "remote_" });
    expect(source).toMatchObject({
      kind: "a2a",
      location: remote.base,
      options: { card: { name: "agui-console", protocolVersion: "1.0" } },
    });
    const names = tools.map((tool) => tool.name);
    expect(names).toContain("remote_calculate");
    expect(names).toContain("remote_issue_refund");
    expect(local.registry.get("remote_issue_refund")!.inputSchema).toEqual(remote.services.registry.get("issue_refund")!.inputSchema);
    expect(local.registry.get("remote_issue_refund")!.binding).toEqual({ skillId: "issue_refund", typed: true });
  });

  it("calls a remote tool as {tool, arguments} and returns its value", async () => {
    expect(ok(await local.executor.call("remote_calculate", { expression: "2*21" }))).toEqual({ expression: "2*21", result: 42 });
    // Arguments are checked here against the remote's schema before anything is sent.
    expect(failure(await local.executor.call("remote_issue_refund", { orderId: 7 })).kind).toBe("invalid_arguments");
  });

  it("an answer of MCP content blocks travels as A2A parts (the image as bytes) and comes back as the same blocks", async () => {
    await importA2A(local, { url: remote.base, prefix: "pic_" });
    expect(ok(await local.executor.call("pic_picture", {}))).toEqual(PICTURE);
  });

  it("a call waiting for the remote operator is a ToolError saying so; after approval there, calling again completes it", async () => {
    const args = { orderId: String(4000 + Math.floor(Math.random() * 1000)), amount: 12 };
    const waiting = failure(await local.executor.call("remote_issue_refund", args));
    expect(waiting.kind).toBe("tool_error");
    expect(waiting.message).toContain("The remote agent needs more input before it goes on");
    expect(waiting.message).toContain("waits for a person's approval");
    expect(waiting.message).toContain("Nothing was approved here");
    // Nothing waits or was decided on this side; the remote has one pending approval for the call.
    expect(countRows(local.database, "approvals")).toBe(0);
    const [approval] = (await pendingRemote()).filter(
      (a) => a.tool === "issue_refund" && (a.args as { orderId: string }).orderId === args.orderId,
    );
    expect(approval).toBeDefined();

    // Before anyone decides, calling again still waits, on the same remote task (no second approval).
    expect(failure(await local.executor.call("remote_issue_refund", args)).message).toContain("needs more input");
    expect((await pendingRemote()).filter((a) => (a.args as { orderId: string }).orderId === args.orderId)).toHaveLength(1);

    expect((await remote.decide(approval!.id, { approved: true })).status).toBe(200);
    expect(ok(await local.executor.call("remote_issue_refund", args))).toMatchObject({ orderId: args.orderId, status: "issued" });
    expect(
      countRows(remote.services.database, "call_results", "tool = 'issue_refund' and json_extract(args, '$.orderId') = ?", args.orderId),
    ).toBe(1);
  });

  it("a call the remote operator denies ends as a ToolError saying the agent rejected it", async () => {
    const args = { orderId: String(6000 + Math.floor(Math.random() * 1000)), amount: 3 };
    failure(await local.executor.call("remote_issue_refund", args));
    const approval = (await pendingRemote()).find((a) => (a.args as { orderId: string }).orderId === args.orderId)!;
    await remote.decide(approval.id, { approved: false });
    const denied = failure(await local.executor.call("remote_issue_refund", args));
    expect(denied).toMatchObject({ kind: "tool_error" });
    expect(denied.message).toMatch(/^The remote agent rejected the call/);
    // The task is over: the next identical call is a new request, waiting for a new approval.
    failure(await local.executor.call("remote_issue_refund", args));
    expect((await pendingRemote()).filter((a) => (a.args as { orderId: string }).orderId === args.orderId)).toHaveLength(1);
  });
});
