import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { EventType, type Interrupt } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import { loadThreadView } from "@/lib/api/threads";
import { LOCAL_PRINCIPAL } from "@/lib/auth/principal";
import { REMOTE_SURFACE } from "@/lib/integrations/agui-remote";
import { countRows } from "../support/database";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { eventsOf, expectValidRun, lastText, observeRun, outcomeOf, RecordingAgent, userMessage } from "../support/agui-client";
import { testServices } from "../support/services";

// Two consoles on 127.0.0.1, each over its own SQLite file: `remote` serves its demo agent over
// AG-UI and wants a bearer token; `local` registers it on /sources as the agent remote:peer. A chat
// through local's AG-UI endpoint (the real @ag-ui/client) is forwarded by local to remote (the real
// @ag-ui/client again, through local's outbound guard); remote's approvals show in local's inbox.

let remote: AguiTestServer;
let local: AguiTestServer;
let token: string;
const AGENT = "remote:peer";
const PATH = `/api/agui/${encodeURIComponent(AGENT)}`;

const send = (method: string, pathname: string, body?: unknown, headers: Record<string, string> = {}) =>
  new Request(`http://127.0.0.1:3000${pathname}`, {
    method,
    headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...headers },
    ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
const params = (values: Record<string, string>) => ({ params: Promise.resolve(values) });
/** The JSON answers these tests read. */
interface AnswerBody {
  error?: { code: string; message: string };
  detail?: string;
  source?: unknown;
  agent?: unknown;
  agents?: Array<{ name: string }>;
  items?: Array<{ id: string }>;
}
const answer = async (response: Response) => ({ status: response.status, body: (await response.json()) as AnswerBody });
const api = () => consoleApi(local.services);
const peerBody = (overrides: Record<string, unknown> = {}) => ({
  name: "peer",
  url: `${remote.url}/api/agui/demo`,
  bearer: token,
  options: { allow: ["127.0.0.1"] },
  ...overrides,
});
const chat = (threadId = randomUUID()) => new RecordingAgent(local.url, { path: PATH, threadId });
/** A loopback port nothing listens on (one that was free a moment ago). */
const closedPort = async (): Promise<number> => {
  const server = http.createServer();
  const port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
  await new Promise((resolve) => server.close(resolve));
  return port;
};
const remoteApprovals = async (threadId: string) => (await remote.services.approvals.list({ threadId })).items;
const localApprovals = async (threadId: string) => (await local.services.approvals.list({ threadId, surface: REMOTE_SURFACE })).items;

beforeAll(async () => {
  remote = await startAguiServer();
  token = (await remote.services.tokens.create("peer")).token;
  local = await startAguiServer();
});
afterAll(async () => {
  await local?.close();
  await remote?.close();
});

describe("adding a remote AG-UI agent on /sources", () => {
  it("tests the connection by the remote console's own agent listing, registering nothing", async () => {
    const tested = await answer(await api().sources.testAgui(send("POST", "/api/sources/agui/test", peerBody())));
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({
      location: `${remote.url}/api/agui/demo`,
      check: "listing",
      agent: { name: "demo" },
      warnings: [],
    });
    expect(tested.body.detail).toContain('lists the agent "demo"');
    expect(countRows(local.services.database, "sources")).toBe(0);
    expect(local.services.agents.get(AGENT)).toBeUndefined();
  });

  it("says when the endpoint refuses the credentials, or is not reachable, and writes nothing", async () => {
    const refused = await answer(await api().sources.testAgui(send("POST", "/api/sources/agui/test", peerBody({ bearer: "wrong" }))));
    expect(refused).toMatchObject({ status: 422, body: { error: { code: "server_unreachable" } } });
    expect(refused.body.error?.message).toContain("refused the console's credentials (HTTP 401)");
    const closed = await answer(
      await api().sources.addAgui(
        send("POST", "/api/sources/agui", peerBody({ url: `http://127.0.0.1:${await closedPort()}/api/agui/demo` })),
      ),
    );
    expect(closed).toMatchObject({ status: 422, body: { error: { code: "server_unreachable" } } });
    expect(closed.body.error?.message).toContain("could not be reached (ECONNREFUSED)");
    expect(countRows(local.services.database, "sources")).toBe(0);
  });

  it("refuses a private address without connecting unless an admin allows it", async () => {
    const started = Date.now();
    const refused = await answer(
      await api().sources.testAgui(
        send("POST", "/api/sources/agui/test", peerBody({ url: "http://10.255.255.1/api/agui/demo", options: {} })),
      ),
    );
    expect(refused).toMatchObject({ status: 422, body: { error: { code: "server_unreachable" } } });
    expect(refused.body.error?.message).toMatch(
      /may not connect to the remote agent at http:\/\/10\.255\.255\.1\/api\/agui\/demo: .*private/,
    );
    // Refused by its address, not by a timeout: nothing was connected to.
    expect(Date.now() - started).toBeLessThan(2000);
    const viewer = (await local.services.tokens.create("tools-only", ["tools"])).token;
    const notAdmin = await api().sources.testAgui(
      send("POST", "/api/sources/agui/test", peerBody(), { authorization: `Bearer ${viewer}` }),
    );
    expect(notAdmin.status).toBe(403);
  });

  it("answers bad input with 400/422 and writes nothing", async () => {
    const before = { sources: countRows(local.services.database, "sources"), agents: local.services.agents.list().length };
    const bad = [
      ["{not json", 400, "invalid_json"],
      [peerBody({ name: "has space" }), 422, "invalid_body"],
      [peerBody({ name: "" }), 422, "invalid_body"],
      [peerBody({ url: "" }), 422, "invalid_body"],
      [peerBody({ bearer: "a\nb" }), 422, "invalid_body"],
      [peerBody({ secrets: { headers: { Host: "evil" } } }), 422, "invalid_body"],
      [peerBody({ secrets: { headers: { Authorization: "x" } } }), 422, "invalid_body"],
      [peerBody({ extra: true }), 422, "invalid_body"],
      [peerBody({ url: "file:///etc/passwd" }), 422, "invalid_options"],
      [peerBody({ url: "http://user:pw@127.0.0.1/api/agui/demo" }), 422, "invalid_options"],
      [peerBody({ options: { allow: ["10.0.0.0/33"] } }), 422, "invalid_options"],
    ] as const;
    for (const [body, status, code] of bad) {
      const refused = await answer(await api().sources.addAgui(send("POST", "/api/sources/agui", body)));
      expect({ body, status: refused.status, code: refused.body.error?.code }).toEqual({ body, status, code });
    }
    expect({ sources: countRows(local.services.database, "sources"), agents: local.services.agents.list().length }).toEqual(before);
  });

  it("adds the source and registers its agent, which the AG-UI listing shows as remote; the token is never listed", async () => {
    const added = await answer(await api().sources.addAgui(send("POST", "/api/sources/agui", peerBody())));
    expect(added.status).toBe(201);
    expect(added.body.source).toMatchObject({ kind: "agui", name: "peer", location: `${remote.url}/api/agui/demo`, status: "ok" });
    expect(added.body.agent).toMatchObject({ name: AGENT, remote: { protocol: "agui", url: `${remote.url}/api/agui/demo` } });
    const listed = await answer(await api().agui.listAgents(send("GET", "/api/agui")));
    expect(listed.body.agents?.map((a) => a.name)).toContain(AGENT);
    const sources = await (await api().sources.list(send("GET", "/api/sources"))).text();
    expect(sources).toContain('"hasSecret":true');
    expect(sources).not.toContain(token);
    // A second source may not take the same agent name.
    const twice = await answer(await api().sources.addAgui(send("POST", "/api/sources/agui", peerBody())));
    expect(twice).toMatchObject({ status: 422, body: { error: { code: "invalid_options" } } });
  });
});

describe("chatting with the remote agent through the console", () => {
  it("streams the remote demo agent's text and tool calls, and both consoles record the run", async () => {
    const agent = chat();
    agent.addMessage(userMessage("weather in Paris"));
    const run = await observeRun(agent);
    expectValidRun(run);
    expect(outcomeOf(run).type).toBe("success");
    const [call] = eventsOf(run, EventType.TOOL_CALL_START);
    expect(call).toMatchObject({ toolCallName: "get_weather" });
    expect(eventsOf(run, EventType.TOOL_CALL_RESULT).map((e) => e.toolCallId)).toEqual([call!.toolCallId]);
    expect(lastText(run)).toMatch(/Paris/);
    // The real client built the same conversation from the forwarded events.
    expect(agent.messages.some((m) => m.role === "tool" && m.toolCallId === call!.toolCallId)).toBe(true);

    // Local recorded every event it sent (replay and reload read these), remote ran it as its token's caller.
    const recorded = await local.services.runs.events(run.input.runId);
    expect(recorded.map((e) => e.type)).toEqual(run.events.map((e) => e.type));
    expect(await local.services.runs.getRun(run.input.runId)).toMatchObject({ agent: AGENT, status: "finished" });
    expect(await remote.services.runs.getRun(run.input.runId)).toMatchObject({
      agent: "demo",
      principal: "token:peer",
      status: "finished",
    });
    expect((await loadThreadView(local.services, run.input.threadId, LOCAL_PRINCIPAL))?.messages.length).toBeGreaterThan(2);
  });

  it("pauses for the remote's approval, lists it in the local inbox, takes the inbox's decision to the remote on resume", async () => {
    const agent = chat();
    const threadId = agent.threadId;
    agent.addMessage(userMessage("refund order 1234 for 20 EUR"));
    const paused = await observeRun(agent);
    expectValidRun(paused);
    const outcome = outcomeOf(paused);
    if (outcome.type !== "interrupt") throw new Error(`expected an interrupt, got ${outcome.type}`);
    const [interrupt] = outcome.interrupts as [Interrupt];
    // The remote's interrupt, unchanged: its id is the remote console's approval.
    const [waiting] = await remoteApprovals(threadId);
    expect(waiting).toMatchObject({ status: "pending", tool: "issue_refund", principal: "token:peer" });
    expect(interrupt).toMatchObject({
      id: waiting!.id,
      reason: "tool_call",
      metadata: { toolName: "issue_refund", approvalId: waiting!.id },
    });

    // The local inbox lists it: who asked here, which agent, the arguments.
    const [inbox] = await localApprovals(threadId);
    expect(inbox).toMatchObject({
      status: "pending",
      surface: REMOTE_SURFACE,
      principal: "local",
      callId: interrupt.id,
      tool: "issue_refund",
      args: { orderId: "1234", amount: 20 },
      runId: paused.input.runId,
    });
    expect(inbox!.message).toMatch(/^remote:peer: /);
    const listed = await answer(await api().approvals.list(send("GET", `/api/approvals?surface=${REMOTE_SURFACE}&status=pending`)));
    expect(listed.body.items?.map((a) => a.id)).toContain(inbox!.id);
    // A reload shows the remote interrupt open.
    expect((await loadThreadView(local.services, threadId, LOCAL_PRINCIPAL))?.interrupts).toEqual([
      expect.objectContaining({ id: interrupt.id, metadata: expect.objectContaining({ status: "pending" }) }),
    ]);

    // An operator approves it in the local inbox, over REST.
    const decided = await api().approvals.decide(
      send("POST", `/api/approvals/${inbox!.id}/decision`, { approved: true }),
      params({ id: inbox!.id }),
    );
    expect(decided.status).toBe(200);
    // A chat reloaded now sees the decision on the interrupt (and resumes by itself).
    expect((await loadThreadView(local.services, threadId, LOCAL_PRINCIPAL))?.interrupts[0]?.metadata).toMatchObject({
      status: "approved",
      decidedBy: "local",
    });

    // The resume carries no payload: what reaches the remote is the inbox's decision.
    const resumed = await observeRun(agent, { resume: [{ interruptId: interrupt.id, status: "resolved" }] });
    expectValidRun(resumed);
    expect(outcomeOf(resumed).type).toBe("success");
    const [result] = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
    expect(result?.toolCallId).toBe(interrupt.toolCallId);
    expect(JSON.parse(String(result!.content))).toMatchObject({ ok: true, value: { orderId: "1234", status: "issued" } });
    expect(lastText(resumed)).toMatch(/Refund .* issued/);
    expect(await remote.services.approvals.get(waiting!.id)).toMatchObject({ status: "consumed", decidedBy: "token:peer" });
    expect(countRows(remote.services.database, "call_results", "tool = 'issue_refund' and json_extract(args, '$.orderId') = '1234'")).toBe(
      1,
    );

    // Locally: used up and answered, shown open no more; both runs recorded.
    expect(await local.services.approvals.get(inbox!.id)).toMatchObject({
      status: "consumed",
      decidedBy: "local",
      answeredRunId: resumed.input.runId,
    });
    expect((await loadThreadView(local.services, threadId, LOCAL_PRINCIPAL))?.interrupts).toEqual([]);
    expect((await local.services.runs.getRun(paused.input.runId))?.status).toBe("interrupted");
    expect((await local.services.runs.getRun(resumed.input.runId))?.status).toBe("finished");
    expect((await local.services.runs.events(resumed.input.runId)).some((e) => e.type === EventType.TOOL_CALL_RESULT)).toBe(true);
  });

  it("a denial in the inbox wins over an approval the client sends", async () => {
    const agent = chat();
    agent.addMessage(userMessage("refund order 77 for 5 EUR"));
    const paused = await observeRun(agent);
    const outcome = outcomeOf(paused);
    if (outcome.type !== "interrupt") throw new Error("expected an interrupt");
    const [interrupt] = outcome.interrupts as [Interrupt];
    const [inbox] = await localApprovals(agent.threadId);
    await api().approvals.decide(
      send("POST", `/api/approvals/${inbox!.id}/decision`, { approved: false, reason: "not this one" }),
      params({ id: inbox!.id }),
    );
    const resumed = await observeRun(agent, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
    expectValidRun(resumed);
    const [result] = eventsOf(resumed, EventType.TOOL_CALL_RESULT);
    expect(JSON.parse(String(result!.content))).toMatchObject({ ok: false, error: { kind: "denied" } });
    expect(await remote.services.approvals.get(interrupt.id)).toMatchObject({ status: "denied", reason: "not this one" });
    expect(countRows(remote.services.database, "call_results", "tool = 'issue_refund' and json_extract(args, '$.orderId') = '77'")).toBe(0);
  });

  it("an answer given inline in the chat is recorded in the inbox and forwarded as it is", async () => {
    const agent = chat();
    agent.addMessage(userMessage("refund order 88 for 6 EUR"));
    const outcome = outcomeOf(await observeRun(agent));
    if (outcome.type !== "interrupt") throw new Error("expected an interrupt");
    const [interrupt] = outcome.interrupts as [Interrupt];
    const resumed = await observeRun(agent, {
      resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: false, reason: "wrong order" } }],
    });
    expectValidRun(resumed);
    const [inbox] = await localApprovals(agent.threadId);
    expect(inbox).toMatchObject({ status: "denied", decidedBy: "local", reason: "wrong order", answeredRunId: resumed.input.runId });
    expect(await remote.services.approvals.get(interrupt.id)).toMatchObject({ status: "denied", reason: "wrong order" });
  });
});

describe("the remote agent's source", async () => {
  it("is restored with its agent when the console starts again over the same database", () => {
    const again = testServices({ CONSOLE_DB: local.services.config.CONSOLE_DB });
    try {
      expect(again.agents.get(AGENT)?.info).toMatchObject({ remote: { protocol: "agui", url: `${remote.url}/api/agui/demo` } });
    } finally {
      again.close();
    }
  });

  it("goes with its agent when removed, and its approvals still waiting are cancelled", async () => {
    const agent = chat();
    agent.addMessage(userMessage("refund order 99 for 7 EUR"));
    expect(outcomeOf(await observeRun(agent)).type).toBe("interrupt");
    const [pending] = await localApprovals(agent.threadId);
    const source = (await local.services.sources.list()).find((s) => s.kind === "agui")!;
    const removed = await api().sources.remove(send("DELETE", `/api/sources/${source.id}`), params({ id: source.id }));
    expect(removed.status).toBe(200);
    expect(local.services.agents.get(AGENT)).toBeUndefined();
    expect(await local.services.approvals.get(pending!.id)).toMatchObject({
      status: "cancelled",
      reason: "the remote agent's source was removed",
    });
    const gone = await fetch(`${local.url}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ threadId: randomUUID(), runId: randomUUID(), messages: [] }),
    });
    expect(gone.status).toBe(404);
  });
});
