import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { buildResumeArray } from "@ag-ui/client";
import { EventType, type Interrupt, type Message } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { startAguiServer } from "../support/agui-server";
import { eventsOf, expectValidRun, lastText, observeRun, outcomeOf, RecordingAgent } from "../support/agui-client";
import { tempDir } from "../support/services";

const run = promisify(execFile);

interface Paused {
  pid: number;
  threadId: string;
  runId: string;
  messages: Message[];
  interrupts: Interrupt[];
  outcome: unknown;
}

describe("a restart between the pause and the resume", () => {
  it(
    "pauses in one process; a new process on the same database file resumes: the tool runs once and its result arrives",
    { timeout: 60_000 },
    async () => {
      const file = path.join(tempDir(), "console.db");
      const { stdout } = await run(
        process.execPath,
        ["--import", "tsx", "test/support/agui-pause.ts", file, "refund order 4321 for 15 EUR"],
        {
          cwd: path.resolve(import.meta.dirname, "../.."),
          env: { ...process.env, LOG_LEVEL: "silent" },
        },
      );
      const paused = JSON.parse(stdout.trim()) as Paused;
      expect(paused.pid).not.toBe(process.pid);
      expect(paused.outcome).toMatchObject({
        type: "interrupt",
        interrupts: [{ reason: "tool_call", metadata: { toolName: "issue_refund" } }],
      });
      const [interrupt] = paused.interrupts;

      const server = await startAguiServer({ CONSOLE_DB: file });
      try {
        const calls: unknown[] = [];
        server.services.registry.bindHandler("issue_refund", (args) => {
          calls.push(args);
          return {
            refundId: "RF-AFTER-RESTART",
            orderId: args.orderId,
            amount: args.amount,
            currency: args.currency,
            status: "issued",
            issuedAt: new Date().toISOString(),
          };
        });
        expect(await server.services.runs.getRun(paused.runId)).toMatchObject({ status: "interrupted" });
        expect(await server.services.approvals.get(interrupt!.id)).toMatchObject({ status: "pending", threadId: paused.threadId });

        const client = new RecordingAgent(server.url, { threadId: paused.threadId, initialMessages: paused.messages });
        client.pendingInterrupts = paused.interrupts;
        const resumed = await observeRun(client, {
          resume: buildResumeArray(client.pendingInterrupts, { [interrupt!.id]: { status: "resolved", payload: { approved: true } } }),
        });
        expectValidRun(resumed);
        expect(outcomeOf(resumed)).toEqual({ type: "success" });
        expect(calls).toEqual([{ orderId: "4321", amount: 15, currency: "EUR" }]);
        const [result] = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
        expect(result?.toolCallId).toBe(interrupt!.toolCallId);
        expect(JSON.parse(result!.content as string)).toMatchObject({ ok: true, value: { refundId: "RF-AFTER-RESTART" } });
        expect(lastText(resumed)).toBe("Refund RF-AFTER-RESTART issued: 15 EUR for order 4321.");
        expect(await server.services.approvals.get(interrupt!.id)).toMatchObject({
          status: "consumed",
          answeredRunId: resumed.input.runId,
        });
      } finally {
        await server.close();
      }
    },
  );
});
