import path from "node:path";
import { buildResumeArray } from "@ag-ui/client";
import { EventType } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { threadScope } from "@/lib/agents/agent-run";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { eventsOf, expectValidRun, lastText, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";
import { tempDir } from "../support/services";

/**
 * The state a `kill -9` leaves while an approved call runs: the executor consumed the approval
 * (approved → consumed) and called the tool, and the process died before the call's result was
 * recorded. Built here in a real SQLite file: pause a run on an approval, approve it, consume it
 * as the executor does, then close the services without any result (the "crash").
 */
async function crashWhileCallRuns(file: string, whatWasRecorded: "nothing" | "call result") {
  const before = await startAguiServer({ CONSOLE_DB: file });
  try {
    const client = new RecordingAgent(before.url);
    client.addMessage(userMessage("refund order 4321 for 15 EUR"));
    const paused = await observeRun(client);
    expect(outcomeOf(paused).type).toBe("interrupt");
    const [interrupt] = client.pendingInterrupts;
    const { approvals } = before.services;
    await approvals.decide(interrupt!.id, { approved: true, decidedBy: "local" });
    const approval = (await approvals.get(interrupt!.id))!;
    const binding = { scope: approval.scope, callId: approval.callId, tool: approval.tool, argsDigest: approval.argsDigest };
    await approvals.consume(approval.id, binding);
    if (whatWasRecorded === "call result")
      await before.services.callHistory.put(
        { principal: approval.principal, ...binding },
        { ok: true, value: { refundId: "RF-BEFORE-CRASH", orderId: "4321", amount: 15, currency: "EUR", status: "issued" } },
        12,
        approval.args,
      );
    return { client, interrupt: interrupt!, threadId: client.threadId, messages: client.messages };
  } finally {
    await before.close();
  }
}

/** Restart on the same file with a refund handler that counts its calls. */
async function restart(file: string): Promise<{ server: AguiTestServer; calls: unknown[] }> {
  const server = await startAguiServer({ CONSOLE_DB: file });
  const calls: unknown[] = [];
  server.services.registry.bindHandler("issue_refund", (args) => {
    calls.push(args);
    return { refundId: "RF-AGAIN", orderId: args.orderId, amount: args.amount, currency: args.currency, status: "issued" };
  });
  return { server, calls };
}

describe("a call cut by a crash", () => {
  it(
    "is reported as outcome unknown to the agent, the inbox and the run, never as denied, and never runs again",
    { timeout: 30_000 },
    async () => {
      const file = path.join(tempDir(), "console.db");
      const crashed = await crashWhileCallRuns(file, "nothing");
      const { server, calls } = await restart(file);
      try {
        // The inbox: the approval says its outcome is unknown (it was consumed; nothing was recorded).
        const approval = (await server.services.approvals.get(crashed.interrupt.id))!;
        expect(approval).toMatchObject({ status: "consumed", ranAt: null, result: { ok: false, error: { kind: "outcome_unknown" } } });
        expect((await server.services.approvals.events(approval.id)).at(-1)).toMatchObject({ type: "ran", actor: "system" });

        // The client comes back after the restart and sends its answer again.
        const client = new RecordingAgent(server.url, { threadId: crashed.threadId, initialMessages: crashed.messages });
        client.pendingInterrupts = [crashed.interrupt];
        const resumed = await observeRun(client, {
          resume: buildResumeArray(client.pendingInterrupts, {
            [crashed.interrupt.id]: { status: "resolved", payload: { approved: true } },
          }),
        });
        expectValidRun(resumed);
        expect(calls).toEqual([]);
        const [result] = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
        expect(result?.toolCallId).toBe(crashed.interrupt.toolCallId);
        const content = JSON.parse(result!.content as string) as { ok: boolean; error: { kind: string; message: string } };
        expect(content).toMatchObject({ ok: false, error: { kind: "outcome_unknown" } });
        expect(content.error.message).toMatch(/may or may not have run/);
        expect(content.error.message).not.toMatch(/denied/);
        expect(lastText(resumed)).toMatch(/cannot tell whether issue_refund ran/);
        // The run keeps it: its recorded events and the thread's state say unknown, not denied.
        const recorded = await server.services.runs.events(resumed.input.runId);
        expect(recorded.filter((e) => e.type === EventType.TOOL_CALL_RESULT)).toHaveLength(1);
        expect((await server.services.runs.getThread(crashed.threadId))?.state).toMatchObject({
          actions: [{ toolCallId: crashed.interrupt.toolCallId, tool: "issue_refund", outcome: "unknown" }],
        });

        // Asked again with the same call (a replay, another surface): still unknown, still not run.
        const again = await server.services.executor.call("issue_refund", approval.args, {
          callId: approval.callId,
          ctx: {
            runId: "r-replay",
            threadId: crashed.threadId,
            principal: approval.principal,
            scope: threadScope(crashed.threadId),
            surface: "agui",
          },
        });
        expect(again).toMatchObject({ ok: false, error: { kind: "outcome_unknown" } });
        expect(calls).toEqual([]);
      } finally {
        await server.close();
      }
    },
  );

  it(
    "whose result was recorded before the crash gives that result to the inbox and the agent, without running again",
    { timeout: 30_000 },
    async () => {
      const file = path.join(tempDir(), "console.db");
      const crashed = await crashWhileCallRuns(file, "call result");
      const { server, calls } = await restart(file);
      try {
        expect(await server.services.approvals.get(crashed.interrupt.id)).toMatchObject({
          status: "consumed",
          result: { ok: true, value: { refundId: "RF-BEFORE-CRASH" } },
          ranAt: expect.any(Number),
        });
        const client = new RecordingAgent(server.url, { threadId: crashed.threadId, initialMessages: crashed.messages });
        client.pendingInterrupts = [crashed.interrupt];
        const resumed = await observeRun(client, {
          resume: buildResumeArray(client.pendingInterrupts, {
            [crashed.interrupt.id]: { status: "resolved", payload: { approved: true } },
          }),
        });
        expect(calls).toEqual([]);
        expect(lastText(resumed)).toBe("Refund RF-BEFORE-CRASH issued: 15 EUR for order 4321.");
      } finally {
        await server.close();
      }
    },
  );
});
