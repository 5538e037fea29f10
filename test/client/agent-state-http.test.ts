import http from "node:http";
import type { AddressInfo } from "node:net";
import type { RunAgentInput } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentState, HttpAGUIClient } from "@/lib/client";
import { ev } from "./fixtures";

// A scripted AG-UI endpoint over real HTTP: the first run asks to approve a refund, the resumed run answers it.
const bodies: RunAgentInput[] = [];
const encoder = new EventEncoder();
const server = http.createServer((req, res) => {
  let raw = "";
  req.setEncoding("utf8");
  req.on("data", (chunk: string) => (raw += chunk));
  req.on("end", () => {
    const input = JSON.parse(raw) as RunAgentInput;
    bodies.push(input);
    const { threadId, runId } = input;
    const events = input.resume
      ? [
          ev.runStarted(runId, threadId),
          ev.toolResult(
            "c1",
            JSON.stringify(
              input.resume[0]?.status === "resolved"
                ? { ok: true, value: { refunded: 20 } }
                : { ok: false, error: { kind: "cancelled", message: "Cancelled" } },
            ),
          ),
          ...ev.text("m2", "Refund done."),
          ev.runFinished(runId, undefined, threadId),
        ]
      : [
          ev.runStarted(runId, threadId),
          ...ev.text("m1", "I need approval."),
          ...ev.toolCall("c1", "refund", ['{"order":', '"A1"}'], "m1"),
          ev.runFinished(
            runId,
            ev.interrupt([{ id: "i1", reason: "tool_call", toolCallId: "c1", metadata: { toolName: "refund" } }]),
            threadId,
          ),
        ];
    res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache, no-transform" });
    res.end(events.map((event) => encoder.encode(event)).join(""));
  });
});
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/agui/demo`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("AgentState over HttpAGUIClient", () => {
  it("chats, pauses on an approval, and resumes with one resume entry over a real socket", async () => {
    const state = new AgentState({ client: new HttpAGUIClient(url, { headers: { Authorization: "Bearer t" } }), threadId: "t-http" });
    await state.send("refund order A1");
    let snap = state.getSnapshot();
    expect(snap.status).toBe("awaiting_input");
    expect(snap.toolCalls.get("c1")).toMatchObject({ status: "awaiting_approval", args: { order: "A1" } });

    await state.resolve("i1", { approved: true });
    snap = state.getSnapshot();
    expect(snap.status).toBe("finished");
    expect(snap.toolCalls.get("c1")).toMatchObject({ status: "succeeded", result: { refunded: 20 } });
    expect(snap.messages.map((m) => m.id)).toEqual([expect.any(String), "m1", "res-c1", "m2"]);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toMatchObject({
      threadId: "t-http",
      resume: [{ interruptId: "i1", status: "resolved", payload: { approved: true } }],
    });
    expect(bodies[1]?.runId).not.toBe(bodies[0]?.runId);
    expect(bodies[1]?.messages.find((m) => m.id === "m1")).toMatchObject({
      toolCalls: [{ id: "c1", function: { name: "refund", arguments: '{"order":"A1"}' } }],
    });
    expect(JSON.stringify(snap)).not.toContain("Bearer");
  });
});
