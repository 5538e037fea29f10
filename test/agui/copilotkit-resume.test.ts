import type { Message, RunAgentInput } from "@ag-ui/core";
import { EventType } from "@ag-ui/core";
import { buildResumeArray, HttpAgent as LegacyHttpAgent } from "agui-client-legacy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { parseFrames } from "../support/agui-client";

/**
 * CopilotKit 1.74's useInterrupt answers an approval with its own @ag-ui/client 0.0.59 in a way of
 * its own: it adds a tool message carrying the approval payload (or {"status":"cancelled"}) for the
 * paused call, and it resumes under the run id of the run that was interrupted. These tests do
 * exactly that with the real 0.0.59 client over real HTTP and check that the tool runs once, the
 * thread keeps one true answer, and a replay of the resume runs nothing.
 */
let server: AguiTestServer;
let refunds = 0;

beforeAll(async () => {
  server = await startAguiServer();
  server.services.registry.bindHandler("issue_refund", (args) => {
    refunds++;
    return {
      refundId: `RF-CK${refunds}`,
      orderId: args.orderId,
      amount: args.amount,
      currency: args.currency,
      status: "issued",
      issuedAt: new Date().toISOString(),
    };
  });
});
afterAll(() => server?.close());

interface Wire {
  inputs: RunAgentInput[];
  statuses: number[];
  bodies: string[];
}

/** A 0.0.59 HttpAgent on the demo agent whose fetch keeps each request and response. */
function copilotKitLikeAgent() {
  const wire: Wire = { inputs: [], statuses: [], bodies: [] };
  const agent = new LegacyHttpAgent({
    url: `${server.url}/api/agui/demo`,
    fetch: async (url: string, init?: RequestInit) => {
      wire.inputs.push(JSON.parse(String(init?.body)) as RunAgentInput);
      const response = await fetch(url, init);
      wire.statuses.push(response.status);
      wire.bodies.push(await response.clone().text());
      return response;
    },
  });
  return { agent, wire };
}

/** What CopilotKit's useInterrupt does on Approve or Deny: its own tool message, then a resume under the paused run's id. */
async function answerLikeCopilotKit(agent: LegacyHttpAgent, wire: Wire, answer: "approve" | "deny") {
  const [interrupt] = agent.pendingInterrupts;
  const pausedRunId = wire.inputs.at(-1)!.runId;
  const payload = { approved: true };
  agent.addMessage({
    id: `ck-${interrupt!.toolCallId}`,
    role: "tool",
    toolCallId: interrupt!.toolCallId!,
    content: JSON.stringify(answer === "approve" ? payload : { status: "cancelled" }),
  });
  const resume = buildResumeArray(agent.pendingInterrupts, {
    [interrupt!.id]: answer === "approve" ? { status: "resolved", payload } : { status: "cancelled" },
  });
  const failures: unknown[] = [];
  await agent.runAgent({ runId: pausedRunId, resume }, { onRunFailed: (p) => void failures.push(p.error) });
  return { interrupt: interrupt!, pausedRunId, failures };
}

async function pauseOnRefund(text: string) {
  const { agent, wire } = copilotKitLikeAgent();
  agent.addMessage({ id: `u-${Date.now()}`, role: "user", content: text });
  await agent.runAgent({});
  expect(agent.pendingInterrupts).toHaveLength(1);
  return { agent, wire };
}

async function threadMessages(threadId: string): Promise<Message[]> {
  return (await server.services.runs.getThread(threadId))!.messages as Message[];
}

describe("a resume sent CopilotKit's way (same run id, its own tool message)", () => {
  it("approving runs the tool once, under a new run that names the paused one, and the stream echoes the client's run id", async () => {
    const { agent, wire } = await pauseOnRefund("refund order 71 for 12 EUR");
    const before = refunds;
    const { interrupt, pausedRunId, failures } = await answerLikeCopilotKit(agent, wire, "approve");

    expect(failures).toEqual([]);
    expect(wire.statuses.at(-1)).toBe(200);
    expect(refunds - before).toBe(1);
    expect(agent.pendingInterrupts).toEqual([]);
    const events = parseFrames(wire.bodies.at(-1)!);
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, runId: pausedRunId });
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, runId: pausedRunId, outcome: { type: "success" } });
    expect(events.filter((e) => e.type === EventType.TOOL_CALL_RESULT)).toEqual([
      expect.objectContaining({ toolCallId: interrupt.toolCallId, content: expect.stringContaining(`RF-CK${refunds}`) }),
    ]);

    // The record: the paused run stays as it ended; the resume is its own run, child of the paused one.
    const runs = (await server.services.runs.listRuns({ threadId: agent.threadId })).items;
    expect(runs.map((r) => [r.status, r.parentRunId])).toEqual([
      ["finished", pausedRunId],
      ["interrupted", null],
    ]);
    expect(runs[0]!.id).not.toBe(pausedRunId);

    // The thread: the user's words, the call, one answer (the console's, not the client's payload), the reply.
    const messages = await threadMessages(agent.threadId);
    expect(messages.map((m) => m.role).filter((r) => r !== "reasoning")).toEqual(["user", "assistant", "tool", "assistant"]);
    const answers = messages.filter((m) => m.role === "tool");
    expect(answers).toEqual([expect.objectContaining({ toolCallId: interrupt.toolCallId, content: expect.stringContaining("RF-CK") })]);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: `Refund RF-CK${refunds} issued: 12 EUR for order 71.` });
  });

  it("a replay of the same resume is refused as a reused run id (409): nothing runs, the thread is unchanged", async () => {
    const { agent, wire } = await pauseOnRefund("refund order 72 for 3 EUR");
    await answerLikeCopilotKit(agent, wire, "approve");
    const count = refunds;
    const thread = await server.services.runs.getThread(agent.threadId);
    const runs = (await server.services.runs.listRuns({ threadId: agent.threadId })).items.length;

    for (let i = 0; i < 2; i++) {
      const replay = await fetch(`${server.url}/api/agui/demo`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify(wire.inputs.at(-1)),
      });
      expect(replay.status).toBe(409);
      await replay.text();
    }
    expect(refunds).toBe(count);
    expect(await server.services.runs.getThread(agent.threadId)).toEqual(thread);
    expect((await server.services.runs.listRuns({ threadId: agent.threadId })).items).toHaveLength(runs);
  });

  it("denying (CopilotKit's cancel) runs nothing, and the thread's answer is the console's refusal, not the client's message", async () => {
    const { agent, wire } = await pauseOnRefund("refund order 73 for 5 EUR");
    const before = refunds;
    const { interrupt, failures } = await answerLikeCopilotKit(agent, wire, "deny");
    expect(failures).toEqual([]);
    expect(wire.statuses.at(-1)).toBe(200);
    expect(refunds).toBe(before);
    const answers = (await threadMessages(agent.threadId)).filter((m) => m.role === "tool");
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ toolCallId: interrupt.toolCallId });
    expect(answers[0]!.content).not.toBe(JSON.stringify({ status: "cancelled" }));
    expect(JSON.parse(String(answers[0]!.content))).toMatchObject({ ok: false });
  });

  it("a reused id without a resume, with one naming no open interrupt, or from another caller, is still refused", async () => {
    const { agent, wire } = await pauseOnRefund("refund order 74 for 6 EUR");
    const paused = wire.inputs.at(-1)!;
    const [interrupt] = agent.pendingInterrupts;
    const resume = [{ interruptId: interrupt!.id, status: "resolved", payload: { approved: true } }];
    const before = refunds;
    const post = (body: unknown, token?: string) =>
      fetch(`${server.url}/api/agui/demo`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    // No resume: a plain reuse of the id.
    expect((await post({ ...paused, resume: undefined })).status).toBe(409);
    // A resume naming no open interrupt.
    expect((await post({ ...paused, resume: [{ interruptId: "nope", status: "cancelled" }] })).status).toBe(409);
    // Another caller: the thread is not theirs.
    const bob = (await server.services.tokens.create("bob-ck")).token;
    expect([403, 401]).toContain((await post({ ...paused, resume }, bob)).status);
    expect(refunds).toBe(before);
    expect(agent.pendingInterrupts).toHaveLength(1);
  });
});
