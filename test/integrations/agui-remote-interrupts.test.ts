import { afterEach, describe, expect, it } from "vitest";
import type { Interrupt } from "@ag-ui/core";
import { LOCAL_PRINCIPAL } from "@/lib/auth";
import { forwardResume, MAX_RECORDED_INTERRUPTS, recordRemoteInterrupts } from "@/lib/integrations/agui-remote/remote-interrupts";
import type { Services } from "@/lib/services";
import { testServices } from "../support/services";

let services: Services | undefined;
afterEach(() => services?.close());

const scope = { sourceId: "src1", agentName: "remote:peer", threadId: "t1", runId: "r1", principal: LOCAL_PRINCIPAL };
const interrupt = (id: string): Interrupt => ({ id, reason: "tool_approval", message: "Refund?", metadata: { toolName: "issue_refund" } });

describe("a remote agent's interrupts in the inbox", () => {
  it("records at most MAX_RECORDED_INTERRUPTS of one run, however many the remote sends", async () => {
    services = testServices();
    const many = Array.from({ length: 500 }, (_, i) => interrupt(`i${i}`));
    const recorded = await recordRemoteInterrupts(services, scope, many);
    expect(recorded).toHaveLength(MAX_RECORDED_INTERRUPTS);
    expect((await services.approvals.list({ status: "pending" })).items).toHaveLength(MAX_RECORDED_INTERRUPTS);
  });

  it("forwards an expired one as cancelled, whatever answer the client sends later", async () => {
    services = testServices();
    const [approval] = await recordRemoteInterrupts(services, scope, [
      { ...interrupt("late"), expiresAt: new Date(Date.now() + 1000).toISOString() },
    ]);
    // The shortest time a remote interrupt waits is one second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await services.approvals.expireDue();
    expect((await services.approvals.get(approval!.id))?.status).toBe("expired");
    const [forwarded] = await forwardResume(services, { ...scope, runId: "r2" }, [
      { interruptId: "late", status: "resolved", payload: { approved: true } },
    ]);
    expect(forwarded!.entry).toEqual({ interruptId: "late", status: "cancelled" });
  });
});
