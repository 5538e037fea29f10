import { randomUUID } from "node:crypto";
import { buildResumeArray } from "@ag-ui/client";
import { EventType, type Interrupt } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolHandler } from "@/lib/tools/handler";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import {
  eventsOf,
  expectValidRun,
  lastText,
  observeRun,
  outcomeOf,
  parseFrames,
  postRun,
  RecordingAgent,
  userMessage,
  type ObservedRun,
} from "../support/agui-client";

let server: AguiTestServer;
let refunds = 0;
const IGNORED = "agui-console.resume_ignored";

beforeAll(async () => {
  server = await startAguiServer();
  const counting: ToolHandler = (args) => {
    refunds++;
    return {
      refundId: `RF-${refunds}`,
      orderId: args.orderId,
      amount: args.amount,
      currency: args.currency,
      status: "issued",
      issuedAt: new Date().toISOString(),
    };
  };
  server.services.registry.bindHandler("issue_refund", counting);
});
afterAll(() => server.close());

async function pause(client: RecordingAgent, text = "refund order 1234 for 20 EUR"): Promise<{ run: ObservedRun; interrupt: Interrupt }> {
  client.addMessage(userMessage(text));
  const run = await observeRun(client);
  expectValidRun(run);
  expect(outcomeOf(run).type).toBe("interrupt");
  return { run, interrupt: client.pendingInterrupts[0]! };
}

function ignoredEntries(run: ObservedRun) {
  return eventsOf(run, EventType.CUSTOM)
    .filter((e) => e.name === IGNORED)
    .map((e) => e.value as { interruptId: string; reason: string });
}

function interruptIds(run: ObservedRun): string[] {
  const outcome = outcomeOf(run);
  return outcome.type === "interrupt" ? outcome.interrupts.map((i) => i.id) : [];
}

/** Replay a request with a new run id, as a client that retries would. */
async function replay(run: ObservedRun, options: { token?: string } = {}): Promise<ObservedRun> {
  const input = { ...run.input, runId: `r-${randomUUID()}` };
  const response = await postRun(server.url, input, options);
  const raw = await response.text();
  const events = parseFrames(raw);
  const terminal = events.at(-1);
  return {
    input,
    status: response.status,
    contentType: response.headers.get("content-type"),
    raw,
    events,
    result: { result: undefined, newMessages: [] },
    ...(terminal?.type === EventType.RUN_FINISHED ? { finished: terminal } : {}),
    ...(terminal?.type === EventType.RUN_ERROR ? { error: terminal } : {}),
  } as ObservedRun;
}

describe("resume: idempotency", () => {
  it("replaying an applied resume request does not run the tool again; the record answers the call", async () => {
    const client = new RecordingAgent(server.url);
    const { interrupt } = await pause(client);
    const before = refunds;
    const resumed = await observeRun(client, {
      resume: buildResumeArray(client.pendingInterrupts, { [interrupt.id]: { status: "resolved", payload: { approved: true } } }),
    });
    expectValidRun(resumed);
    expect(refunds - before).toBe(1);
    const [original] = eventsOf(resumed, EventType.TOOL_CALL_RESULT);

    for (let i = 0; i < 2; i++) {
      const again = await replay(resumed);
      expectValidRun(again);
      expect(outcomeOf(again)).toEqual({ type: "success" });
      expect(refunds - before).toBe(1);
      const [answer] = eventsOf(again, EventType.TOOL_CALL_RESULT);
      expect(answer).toMatchObject({ toolCallId: interrupt.toolCallId, content: original!.content });
      expect(ignoredEntries(again)).toEqual([{ interruptId: interrupt.id, reason: "this interrupt was answered already" }]);
      expect(lastText(again)).toBe(lastText(resumed));
    }
    expect(await server.services.approvals.get(interrupt.id)).toMatchObject({ status: "consumed", answeredRunId: resumed.input.runId });
  });
});

describe("resume: who may answer, where and when", () => {
  it("another caller cannot even post on the owner's thread (403), so nothing is answered", async () => {
    const alice = (await server.services.tokens.create(`alice-${randomUUID().slice(0, 8)}`)).token;
    const bob = (await server.services.tokens.create(`bob-${randomUUID().slice(0, 8)}`)).token;
    const client = new RecordingAgent(server.url, { token: alice });
    const { run, interrupt } = await pause(client);
    const resume = buildResumeArray(client.pendingInterrupts, { [interrupt.id]: { status: "resolved", payload: { approved: true } } });
    const response = await postRun(
      server.url,
      { ...run.input, runId: `r-${randomUUID()}`, messages: client.messages, resume },
      { token: bob },
    );
    expect(response.status).toBe(403);
    expect(await server.services.approvals.get(interrupt.id)).toMatchObject({ status: "pending", answeredAt: null });
  });

  it("an operator (a token with the approvals scope) may answer another caller's interrupt", async () => {
    const owner = (await server.services.tokens.create(`owner-${randomUUID().slice(0, 8)}`)).token;
    const operatorName = `ops-${randomUUID().slice(0, 8)}`;
    const operator = (await server.services.tokens.create(operatorName, ["agui", "approvals"])).token;
    const client = new RecordingAgent(server.url, { token: owner });
    const { interrupt } = await pause(client);
    const before = refunds;
    const ops = new RecordingAgent(server.url, { token: operator, threadId: client.threadId, initialMessages: client.messages });
    const run = await observeRun(ops, {
      resume: buildResumeArray([interrupt], { [interrupt.id]: { status: "resolved", payload: { approved: false, reason: "not today" } } }),
    });
    expectValidRun(run);
    expect(ignoredEntries(run)).toEqual([]);
    expect(refunds).toBe(before);
    expect(lastText(run)).toBe("I did not run issue_refund: the call was denied (reason: not today).");
    expect(await server.services.approvals.get(interrupt.id)).toMatchObject({ status: "denied", decidedBy: `token:${operatorName}` });
  });

  it("a foreign principal on a shared thread: the entry is ignored with a warning event and the interrupt stays open", async () => {
    const bobName = `bob-${randomUUID().slice(0, 8)}`;
    const bob = (await server.services.tokens.create(bobName)).token;
    const threadId = `t-${randomUUID()}`;
    // Bob's thread; the local operator joins it and asks for a refund: the approval is the operator's.
    const bobClient = new RecordingAgent(server.url, { token: bob, threadId });
    bobClient.addMessage(userMessage("hello"));
    expectValidRun(await observeRun(bobClient));
    const operator = new RecordingAgent(server.url, { threadId, initialMessages: bobClient.messages });
    const { interrupt } = await pause(operator);
    expect((await server.services.approvals.get(interrupt.id))?.principal).toBe("local");

    const before = refunds;
    bobClient.setMessages(operator.messages);
    const attempt = await observeRun(bobClient, {
      resume: buildResumeArray([interrupt], { [interrupt.id]: { status: "resolved", payload: { approved: true } } }),
    });
    expectValidRun(attempt);
    expect(refunds).toBe(before);
    expect(ignoredEntries(attempt)).toEqual([
      { interruptId: interrupt.id, reason: expect.stringContaining("only the caller who started the run, or an operator") },
    ]);
    expect(interruptIds(attempt)).toEqual([interrupt.id]);
    expect(eventsOf(attempt, EventType.TEXT_MESSAGE_START)).toEqual([]);
    expect(eventsOf(attempt, EventType.TOOL_CALL_RESULT)).toEqual([]);
    expect(await server.services.approvals.get(interrupt.id)).toMatchObject({ status: "pending", decidedBy: null });

    // Its owner still can.
    const done = await observeRun(operator, {
      resume: buildResumeArray(operator.pendingInterrupts, { [interrupt.id]: { status: "resolved", payload: { approved: true } } }),
    });
    expectValidRun(done);
    expect(refunds - before).toBe(1);
  });

  it("an interrupt id of another thread is ignored there and stays open on its own thread", async () => {
    const first = new RecordingAgent(server.url);
    const { interrupt } = await pause(first);
    const before = refunds;
    const other = new RecordingAgent(server.url);
    other.addMessage(userMessage("weather in Oslo"));
    const run = await observeRun(other, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
    expectValidRun(run);
    expect(refunds).toBe(before);
    expect(ignoredEntries(run)).toEqual([{ interruptId: interrupt.id, reason: "no open interrupt with this id on this thread" }]);
    // The other thread has nothing open: its agent goes on with its own request.
    expect(outcomeOf(run)).toEqual({ type: "success" });
    expect(lastText(run)).toMatch(/^In Oslo it is /);
    expect(eventsOf(run, EventType.TOOL_CALL_RESULT).map((r) => r.toolCallId)).not.toContain(interrupt.toolCallId);
    expect(await server.services.approvals.get(interrupt.id)).toMatchObject({ status: "pending", answeredAt: null });
  });

  it("an interrupt left uncovered stays open: the model is not called and the run ends with the interrupt again", async () => {
    const client = new RecordingAgent(server.url);
    const { run, interrupt } = await pause(client);
    // The real client refuses to send such a request at all.
    client.addMessage(userMessage("what about the weather in Rome?"));
    await expect(client.runAgent()).rejects.toThrow(/not addressed by resume/);
    expect(client.exchanges).toHaveLength(1);

    // A client that forgot the interrupt sends it anyway.
    const forgetful = new RecordingAgent(server.url, { threadId: client.threadId, initialMessages: client.messages });
    const before = refunds;
    const again = await observeRun(forgetful);
    expectValidRun(again);
    expect(refunds).toBe(before);
    expect(interruptIds(again)).toEqual([interrupt.id]);
    expect(
      again.events.filter((e) => e.type.startsWith("TEXT_MESSAGE") || e.type.startsWith("REASONING") || e.type.startsWith("TOOL_CALL")),
    ).toEqual([]);
    expect(forgetful.pendingInterrupts.map((i) => i.id)).toEqual([interrupt.id]);
    expect(await server.services.runs.getRun(again.input.runId)).toMatchObject({ status: "interrupted" });
    expect((await server.services.approvals.get(interrupt.id))?.status).toBe("pending");
    expect(run.input.threadId).toBe(again.input.threadId);
  });

  it("an operator's stored decision is the one applied, whatever the resume payload says", async () => {
    const denied = new RecordingAgent(server.url);
    const { interrupt: first } = await pause(denied);
    await server.services.approvals.decide(first.id, { approved: false, reason: "refunds are frozen today", decidedBy: "token:ops" });
    const before = refunds;
    const run = await observeRun(denied, {
      resume: buildResumeArray(denied.pendingInterrupts, { [first.id]: { status: "resolved", payload: { approved: true } } }),
    });
    expectValidRun(run);
    expect(refunds).toBe(before);
    expect(lastText(run)).toBe("I did not run issue_refund: the call was denied (reason: refunds are frozen today).");
    expect(await server.services.approvals.get(first.id)).toMatchObject({ status: "denied", decidedBy: "token:ops" });

    const approved = new RecordingAgent(server.url);
    const { interrupt: second } = await pause(approved, "refund order 88 for 40 EUR");
    await server.services.approvals.decide(second.id, {
      approved: true,
      editedArgs: { orderId: "88", amount: 30, currency: "EUR" },
      decidedBy: "token:ops",
    });
    const run2 = await observeRun(approved, {
      resume: buildResumeArray(approved.pendingInterrupts, {
        [second.id]: { status: "resolved", payload: { approved: false, reason: "no" } },
      }),
    });
    expectValidRun(run2);
    expect(refunds - before).toBe(1);
    expect(lastText(run2)).toMatch(/issued: 30 EUR for order 88\.$/);
    expect(await server.services.approvals.get(second.id)).toMatchObject({ status: "consumed", decidedBy: "token:ops", reason: null });
  });
});

describe("resume: expiry", () => {
  let short: AguiTestServer;
  let ran = 0;
  beforeAll(async () => {
    short = await startAguiServer({ APPROVAL_TTL_SECONDS: "1" });
    short.services.registry.bindHandler("issue_refund", () => {
      ran++;
      return { refundId: "RF-X", orderId: "1", amount: 1, currency: "EUR", status: "issued", issuedAt: new Date().toISOString() };
    });
  });
  afterAll(() => short?.close());

  it("an expired interrupt cannot be resolved, but can be cancelled", async () => {
    const client = new RecordingAgent(short.url);
    client.addMessage(userMessage("refund order 1 for 1 EUR"));
    const paused = await observeRun(client);
    expectValidRun(paused);
    const interrupt = client.pendingInterrupts[0]!;
    const expiresAt = Date.parse(interrupt.expiresAt!);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(1000);
    // Waiting on the clock itself: there is no event to await.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 50));

    const approve = buildResumeArray(client.pendingInterrupts, { [interrupt.id]: { status: "resolved", payload: { approved: true } } });
    await expect(client.runAgent({ resume: approve })).rejects.toThrow(/expired/);
    // Sent anyway, by a client that does not check: ignored, the interrupt is listed again.
    const response = await postRun(short.url, { ...paused.input, runId: `r-${randomUUID()}`, messages: client.messages, resume: approve });
    const events = parseFrames(await response.text());
    expect(events.filter((e) => e.type === EventType.CUSTOM)).toEqual([
      expect.objectContaining({
        name: IGNORED,
        value: { interruptId: interrupt.id, reason: "the interrupt expired: it can only be cancelled" },
      }),
    ]);
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: "interrupt", interrupts: [expect.objectContaining({ id: interrupt.id })] },
    });
    expect(ran).toBe(0);
    expect((await short.services.approvals.get(interrupt.id))?.status).toBe("expired");

    const cancelled = await observeRun(client, {
      resume: buildResumeArray(client.pendingInterrupts, { [interrupt.id]: { status: "cancelled" } }),
    });
    expectValidRun(cancelled);
    expect(outcomeOf(cancelled)).toEqual({ type: "success" });
    expect(ran).toBe(0);
    expect(eventsOf(cancelled, EventType.TOOL_CALL_RESULT).map((r) => r.toolCallId)).toEqual([interrupt.toolCallId]);
    expect(lastText(cancelled)).toBe("Nobody approved the issue_refund call in time, so it did not run.");
    expect(await short.services.approvals.unansweredForThread(client.threadId)).toEqual([]);
  });
});
