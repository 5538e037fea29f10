import { randomUUID } from "node:crypto";
import { EventType } from "@ag-ui/core";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import { isPending } from "@/lib/execution";
import { importMcp } from "@/lib/integrations/mcp/import-mcp";
import type { Services } from "@/lib/services";
import { startMcpServer, type McpTestServer } from "../support/mcp-server";
import { EVERYTHING, FIXTURE, stdioTarget } from "../support/mcp-servers";
import { testServices } from "../support/services";
import { parseFrames, userMessage } from "../support/agui-client";

// The console as a gateway: tools imported from one MCP server are served to other MCP clients
// from the console's own endpoint, with the console's approvals in front of them.

let gateway: McpTestServer;
let downstream: Services;

beforeAll(async () => {
  gateway = await startMcpServer({ env: { OUTBOUND_ALLOW: "127.0.0.1/32" } });
  await importMcp(gateway.services, { target: stdioTarget(FIXTURE), prefix: "gw_" });
  await importMcp(gateway.services, { target: stdioTarget(EVERYTHING, ["stdio"]), prefix: "ev_" });
  downstream = testServices({ OUTBOUND_ALLOW: "127.0.0.1/32" });
});
afterAll(async () => {
  await gateway.services.mcp.closeAll();
  await gateway.close();
  await downstream.mcp.closeAll();
  downstream.close();
});

const text = (result: CallToolResult) =>
  (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? "").join("\n");

describe("imported tools served over the console's MCP endpoint", () => {
  it("lists them with the annotations of the policy their server's annotations gave", async () => {
    const client = await gateway.connect();
    const tools = new Map<string, { annotations?: Record<string, unknown> }>();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      for (const tool of page.tools) tools.set(tool.name, tool);
      cursor = page.nextCursor;
    } while (cursor);
    expect(tools.get("gw_say")?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.get("gw_wipe")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it("runs a read-only one at once, and holds a destructive one for an operator's approval, shown in the inbox as asked over MCP", async () => {
    const client = await gateway.connect();
    expect(text((await client.callTool({ name: "gw_say", arguments: { text: "through" } })) as CallToolResult)).toContain("said: through");

    const waiting = (await client.callTool({ name: "gw_wipe", arguments: { target: "cache" } })) as CallToolResult;
    expect(waiting.isError).toBe(true);
    const meta = waiting._meta as Record<string, string>;
    const approvalId = meta["agui-console/approval_id"]!;
    expect(await gateway.services.approvals.get(approvalId)).toMatchObject({ status: "pending", surface: "mcp", tool: "gw_wipe" });
    expect((await gateway.decide(approvalId, { approved: true })).status).toBe(200);
    const again = (await client.callTool({
      name: "gw_wipe",
      arguments: { target: "cache" },
      _meta: { "agui-console/call_id": meta["agui-console/call_id"]! },
    })) as CallToolResult;
    expect(again.isError).toBeFalsy();
    expect(text(again)).toContain("wiped cache");
  });

  it("passes an image through: the server's content blocks reach the client as they were sent", async () => {
    const upstream = await gateway.services.mcp.forSource(gateway.services.registry.get("ev_get-tiny-image")!.sourceId!);
    const direct = await upstream.callTool("get-tiny-image", {}, new AbortController().signal);
    const client = await gateway.connect();
    const served = (await client.callTool({ name: "ev_get-tiny-image", arguments: {} })) as CallToolResult;
    expect(served.isError).toBeFalsy();
    expect(served.content.map((block) => block.type)).toEqual(["text", "image", "text"]);
    expect(served.content).toEqual(direct.content);
    expect(served.structuredContent).toBeUndefined();
  });

  it("the demo agent says what an image answer holds, naming the image rather than spelling it out", async () => {
    const input = { threadId: `t-${randomUUID()}`, runId: `r-${randomUUID()}`, messages: [userMessage("/ev_get-tiny-image {}")] };
    const response = await consoleApi(gateway.services).agui.run(
      new Request("http://127.0.0.1:3000/api/agui/demo", {
        method: "POST",
        headers: { host: "127.0.0.1:3000", "content-type": "application/json" },
        body: JSON.stringify(input),
      }),
      { params: Promise.resolve({ agent: "demo" }) },
    );
    const events = parseFrames(await response.text());
    const said = events.flatMap((e) => (e.type === EventType.TEXT_MESSAGE_CONTENT ? [e.delta] : [])).join("");
    expect(said).toContain("ev_get-tiny-image answered: Here's the image you requested: [image/png image, shown above]");
  });

  it("serves them to A2A clients too: a destructive one waits in the inbox (surface a2a), then runs once approved", async () => {
    const a2a = consoleApi(gateway.services).a2a;
    const rpc = async (params: unknown) => {
      const response = await a2a.post(
        new Request("http://127.0.0.1:3000/api/a2a", {
          method: "POST",
          headers: { host: "127.0.0.1:3000", "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params }),
        }),
      );
      return ((await response.json()) as { result: { task: { id: string; contextId: string; status: { state: string } } } }).result.task;
    };
    const message = (parts: unknown[], task?: { id: string; contextId: string }) => ({
      message: { messageId: randomUUID(), role: "ROLE_USER", parts, ...(task && { taskId: task.id, contextId: task.contextId }) },
    });
    const waiting = await rpc(message([{ data: { tool: "gw_wipe", arguments: { target: "queue" } } }]));
    expect(waiting.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const [asked] = (await gateway.services.approvals.list({ status: "pending", tool: "gw_wipe" })).items;
    expect(asked).toMatchObject({ surface: "a2a", principal: "local", args: { target: "queue" } });
    await gateway.services.approvals.decide(asked!.id, { approved: true, decidedBy: "operator" });
    const done = await rpc(message([{ text: "decided" }], waiting));
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    expect(JSON.stringify(done)).toContain("wiped queue");
  });

  it("can itself be imported by another console over Streamable HTTP", async () => {
    const result = await importMcp(downstream, { target: { transport: "http", url: gateway.url }, prefix: "up_" });
    expect(result.source).toMatchObject({ kind: "mcp", location: gateway.url });
    expect(downstream.registry.get("up_gw_wipe")?.policy).toMatchObject({ effects: "destructive", confirm: true });
    const said = await downstream.executor.call("up_gw_say", { text: "two hops" });
    expect(isPending(said) ? said : said.ok && JSON.stringify(said.value)).toContain("said: two hops");
  });

  it("a destructive tool two consoles away waits for each console's operator, then runs once", async () => {
    // The downstream console's own approval first, as for any destructive tool (each call a new key).
    const approvedDownstream = async (callId: string) => {
      const asked = await downstream.executor.call("up_gw_wipe", { target: "logs" }, { callId, ctx: { scope: "gateway-chain" } });
      if (!isPending(asked)) throw new Error("the downstream console did not ask for approval");
      await downstream.approvals.decide(asked.pending.approvalId, { approved: true, decidedBy: "downstream-operator" });
      return downstream.executor.call("up_gw_wipe", { target: "logs" }, { callId, ctx: { scope: "gateway-chain" } });
    };
    // Its call reaches the upstream console, which holds it for its own operator (the client there sends no call key).
    const held = await approvedDownstream("chain-1");
    expect(!isPending(held) && !held.ok && held.error.message).toContain("waits for a person's approval");
    const upstream = (await gateway.services.approvals.list({ status: "pending", tool: "gw_wipe" })).items;
    expect(upstream).toHaveLength(1);
    await gateway.services.approvals.decide(upstream[0]!.id, { approved: true, decidedBy: "upstream-operator" });
    // Made again downstream, the same call reaches the upstream approval now decided, and runs there.
    const ran = await approvedDownstream("chain-2");
    expect(!isPending(ran) && ran.ok && JSON.stringify(ran.value)).toContain("wiped logs");
    expect(await gateway.services.approvals.get(upstream[0]!.id)).toMatchObject({ status: "consumed" });
  });
});
