import { randomUUID } from "node:crypto";
import { ClientFactory } from "a2a-sdk-v03/client";
import type { Task } from "a2a-sdk-v03";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startA2AServer, type A2ATestServer } from "../support/a2a-server";
import { RED_DOT_PNG } from "../support/media";

let a2a: A2ATestServer;

beforeAll(async () => {
  a2a = await startA2AServer();
});
afterAll(() => a2a.close());

const message = (parts: unknown[], task?: { taskId: string; contextId: string }) => ({
  message: { kind: "message" as const, messageId: randomUUID(), role: "user" as const, parts: parts as never, ...task },
});

describe("A2A server: an @a2a-js/sdk 0.3.14 client (the v0.3 wire)", () => {
  it("discovers the console from its card, calls a tool, and waits on an approval an operator grants", async () => {
    const client = await new ClientFactory().createFromUrl(a2a.base);
    expect((await client.getAgentCard()).skills.map((s) => s.id)).toContain("issue_refund");

    const done = (await client.sendMessage(
      message([{ kind: "data", data: { tool: "calculate", arguments: { expression: "2*21" } } }]),
    )) as Task;
    expect(done).toMatchObject({ kind: "task", status: { state: "completed" } });
    expect(done.artifacts?.[0]?.parts[0]).toMatchObject({ kind: "data", data: { result: 42 } });

    const orderId = String(Math.floor(Math.random() * 9000) + 1000);
    const waiting = (await client.sendMessage(
      message([{ kind: "data", data: { tool: "issue_refund", arguments: { orderId, amount: 5 } } }]),
    )) as Task;
    expect(waiting.status.state).toBe("input-required");
    const named = waiting.status.message!.parts.find((p) => p.kind === "data") as unknown as {
      data: { approvals: Array<{ approval_id: string }> };
    };
    const approvalId = named.data.approvals[0]!.approval_id;
    expect(await a2a.services.approvals.get(approvalId)).toMatchObject({ status: "pending", surface: "a2a" });

    expect((await a2a.decide(approvalId, { approved: true })).status).toBe(200);
    const resumed = (await client.sendMessage(
      message([{ kind: "text", text: "approved" }], { taskId: waiting.id, contextId: waiting.contextId }),
    )) as Task;
    expect(resumed).toMatchObject({ id: waiting.id, status: { state: "completed" } });
    expect(resumed.artifacts?.[0]?.parts[0]).toMatchObject({ kind: "data", data: { orderId, status: "issued" } });
    expect((await client.getTask({ id: waiting.id })).status.state).toBe("completed");
  });

  it("gets an image a tool answers as a file part with its bytes, and a link as a file part with its URL", async () => {
    const png = RED_DOT_PNG;
    if (!a2a.services.registry.get("picture"))
      await a2a.services.registry.add(
        { name: "picture", description: "Draws a dot", inputSchema: { type: "object", properties: {} } },
        () => ({
          content: [
            { type: "text", text: "A red dot:" },
            { type: "image", data: png, mimeType: "image/png" },
            { type: "resource_link", uri: "https://example.com/dot.png", name: "dot.png", mimeType: "image/png" },
          ],
        }),
      );
    const client = await new ClientFactory().createFromUrl(a2a.base);
    const done = (await client.sendMessage(message([{ kind: "data", data: { tool: "picture", arguments: {} } }]))) as Task;
    expect(done.status.state).toBe("completed");
    expect(done.artifacts?.[0]?.parts).toEqual([
      expect.objectContaining({ kind: "text", text: "A red dot:" }),
      expect.objectContaining({ kind: "file", file: expect.objectContaining({ bytes: png, mimeType: "image/png" }) }),
      expect.objectContaining({
        kind: "file",
        file: expect.objectContaining({ uri: "https://example.com/dot.png", mimeType: "image/png", name: "dot.png" }),
      }),
    ]);
  });

  it("cancels a waiting task and reads a denied one as rejected", async () => {
    const client = await new ClientFactory().createFromUrl(a2a.base);
    const call = () =>
      client.sendMessage(message([{ kind: "data", data: { tool: "issue_refund", arguments: { orderId: "55", amount: 5 } } }]));
    const first = (await call()) as Task;
    expect((await client.cancelTask({ id: first.id })).status.state).toBe("canceled");
    const second = (await call()) as Task;
    const approvalId = (
      second.status.message!.parts.find((p) => p.kind === "data") as unknown as { data: { approvals: Array<{ approval_id: string }> } }
    ).data.approvals[0]!.approval_id;
    await a2a.decide(approvalId, { approved: false });
    const denied = (await client.sendMessage(
      message([{ kind: "text", text: "well?" }], { taskId: second.id, contextId: second.contextId }),
    )) as Task;
    expect(denied.status.state).toBe("rejected");
  });
});
