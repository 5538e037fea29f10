import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTicket } from "@/lib/demo/tools";
import { consoleApi, createConsoleApi } from "@/lib/api";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import type { SqliteServices } from "@/lib/services";
import { testServices } from "../support/services";
import { approvalIdOf } from "../support/outcomes";

let services: SqliteServices;
let api: ReturnType<typeof consoleApi>["approvals"];

beforeAll(() => {
  services = testServices();
  api = consoleApi(services).approvals;
});
afterAll(() => services.close());

const ctx = (id: string) => ({ params: Promise.resolve({ id }) });
const post = (body: unknown, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1:3000/api/approvals/x/decision", {
    method: "POST",
    headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const get = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://127.0.0.1:3000${path}`, { headers: { host: "127.0.0.1:3000", ...headers } });

const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string } }).error,
});

let seq = 0;
/** A pending approval asked by a real executor call of a confirm tool. */
async function pendingRefund(threadId = `thread-${++seq}`, principal = "alice"): Promise<string> {
  const result = await services.executor.call(
    "issue_refund",
    { orderId: `${1000 + seq}`, amount: 10 },
    { callId: `call-${++seq}`, ctx: { principal, scope: `agui:${threadId}`, threadId, runId: `run-${seq}`, surface: "agui" } },
  );
  return approvalIdOf(result);
}

describe("approvals REST", () => {
  it("lists pending approvals newest first, with filters", async () => {
    const a = await pendingRefund();
    const b = await pendingRefund();
    const response = await api.list(get("/api/approvals?status=pending&tool=issue_refund"));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { items: Array<{ id: string; key?: string }>; pending: number };
    expect(body.items.map((i) => i.id).slice(0, 2)).toEqual([b, a]);
    expect(body.items[0]).not.toHaveProperty("key");
    expect(body.pending).toBeGreaterThanOrEqual(2);
    // A bad query or cursor is 400, as on every list.
    expect(await errorOf(await api.list(get("/api/approvals?status=bogus")))).toMatchObject({ status: 400, code: "invalid_query" });
    expect(await errorOf(await api.list(get("/api/approvals?cursor=nonsense")))).toMatchObject({ status: 400, code: "invalid_cursor" });
  });

  it("decides: 200 with the new state, then 409 for a second decision, 404 unknown, 422 bad edits", async () => {
    const id = await pendingRefund();
    const ok = await api.decide(post({ approved: true, reason: "fine" }), ctx(id));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ approval: { id, status: "approved", decidedBy: "local", reason: "fine" } });
    const again = await api.decide(post({ approved: false }), ctx(id));
    expect(again.status).toBe(409);
    expect((await api.decide(post({ approved: true }), ctx("apr_nope"))).status).toBe(404);
    const other = await pendingRefund();
    const bad = await api.decide(post({ approved: true, editedArgs: { orderId: "x", amount: -5 } }), ctx(other));
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: { issues: unknown[] } }).error.issues.length).toBeGreaterThan(0);
    expect((await services.approvals.get(other))?.status).toBe("pending");
    expect((await api.decide(post({ approved: "yes" }), ctx(other))).status).toBe(422);
    const notJson = new Request("http://127.0.0.1:3000/x", {
      method: "POST",
      headers: { host: "127.0.0.1:3000", "content-type": "text/plain" },
      body: "approve",
    });
    expect((await api.decide(notJson, ctx(other))).status).toBe(415);
  });

  it("answers 410 for an expired approval", async () => {
    const id = await pendingRefund();
    services.database.sqlite.prepare("update approvals set expires_at = ? where id = ?").run(Date.now() - 1000, id);
    const response = await api.decide(post({ approved: true }), ctx(id));
    expect(response.status).toBe(410);
    expect((await services.approvals.get(id))?.status).toBe("expired");
  });

  it("refuses callers who are not operators: 401 without a token off loopback, 403 for a token without the approvals scope", async () => {
    const id = await pendingRefund();
    const { token } = await services.tokens.create(`agent-only-${seq}`, ["agui"]);
    const forbidden = await api.decide(post({ approved: true }, { authorization: `Bearer ${token}` }), ctx(id));
    expect(forbidden.status).toBe(403);
    expect((await api.decide(post({ approved: true }, { authorization: "Bearer aguic_wrong" }), ctx(id))).status).toBe(401);
    const remote = createConsoleApi({ ...services, access: { ...services.access, bindHost: "0.0.0.0" } }).approvals;
    expect((await remote.decide(post({ approved: true }), ctx(id))).status).toBe(401);
    const { token: operatorToken } = await services.tokens.create(`operator-${seq}`, ["approvals"]);
    const allowed = await remote.decide(post({ approved: true }, { authorization: `Bearer ${operatorToken}` }), ctx(id));
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toMatchObject({ approval: { decidedBy: `token:operator-${seq}` } });
  });

  it("two operators deciding at once over HTTP: exactly one wins, the other gets 409, one decision in the audit trail", async () => {
    const server = createNodeServer([{ method: "POST", path: "/api/approvals/[id]/decision", handler: api.decide as WebHandler }]);
    const url = await listenLocal(server);
    try {
      for (let round = 0; round < 5; round++) {
        const id = await pendingRefund();
        const send = (approved: boolean) =>
          fetch(`${url}/api/approvals/${id}/decision`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ approved }),
          });
        const statuses = (await Promise.all([send(true), send(false)])).map((r) => r.status).sort();
        expect(statuses).toEqual([200, 409]);
        expect((await services.approvals.events(id)).filter((e) => e.type === "decided")).toHaveLength(1);
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("decides several at once and reports each", async () => {
    const a = await pendingRefund();
    const b = await pendingRefund();
    await services.approvals.decide(b, { approved: false, decidedBy: "someone" });
    const response = await api.decideMany(
      new Request("http://127.0.0.1:3000/api/approvals/decisions", {
        method: "POST",
        headers: { host: "127.0.0.1:3000", "content-type": "application/json" },
        body: JSON.stringify({ ids: [a, b], approved: true }),
      }),
    );
    expect(await response.json()).toEqual({
      results: [
        { id: a, ok: true, status: "approved" },
        { id: b, ok: false, error: { code: "approval_already_decided", message: expect.stringContaining("denied") } },
      ],
    });
  });

  it("GET /api/approvals/[id] shows the audit trail: who asked, who decided, the reason, edited arguments and the outcome", async () => {
    const threadId = `thread-audit-${++seq}`;
    const callId = `call-audit-${seq}`;
    const call = { principal: "bob", scope: `agui:${threadId}`, threadId, runId: `run-${seq}`, surface: "agui" as const };
    const pending = await services.executor.call("issue_refund", { orderId: "555", amount: 90 }, { callId, ctx: call });
    const id = approvalIdOf(pending);
    await api.decide(post({ approved: true, reason: "half only", editedArgs: { orderId: "555", amount: 45 } }), ctx(id));
    const ran = await services.executor.call("issue_refund", { orderId: "555", amount: 90 }, { callId, ctx: call });
    expect(ran).toMatchObject({ ok: true, value: { amount: 45 } });
    const body = (await (await api.get(get(`/api/approvals/${id}`), ctx(id))).json()) as {
      approval: Record<string, unknown>;
      events: Array<{ type: string; actor: string }>;
    };
    expect(body.approval).toMatchObject({
      principal: "bob",
      status: "consumed",
      decidedBy: "local",
      reason: "half only",
      args: { orderId: "555", amount: 90 },
      editedArgs: { orderId: "555", amount: 45 },
    });
    expect(body.approval.result).toMatchObject({ ok: true, value: { amount: 45 } });
    expect(body.events.map((e) => [e.type, e.actor])).toEqual([
      ["requested", "bob"],
      ["decided", "local"],
      ["consumed", "executor"],
      ["ran", "executor"],
    ]);
  });

  it("streams every change as server-sent events", async () => {
    const controller = new AbortController();
    const response = await api.events(
      new Request("http://127.0.0.1:3000/api/approvals/events", { headers: { host: "127.0.0.1:3000" }, signal: controller.signal }),
    );
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) text += decoder.decode((await reader.read()).value);
    };
    await readUntil('"type":"hello"');
    const id = await pendingRefund();
    await readUntil(`"type":"requested","approval":{"id":"${id}"`);
    await services.approvals.decide(id, { approved: true, decidedBy: "op" });
    await readUntil(`"type":"decided","approval":{"id":"${id}"`);
    controller.abort();
    await reader.cancel();
  });
});

describe("once per thread", () => {
  it("a grant is remembered for its thread only, and revoked when the tool's definition changes", async () => {
    await services.registry.update("create_ticket", { approval: "once_per_thread" });
    const call = (threadId: string, callId: string) =>
      services.executor.call(
        "create_ticket",
        { title: "Printer on fire" },
        { callId, ctx: { principal: "alice", scope: `agui:${threadId}`, threadId, runId: callId, surface: "agui" } },
      );

    const first = await call("t-grant", "c1");
    expect(first).toMatchObject({ pending: { approvalId: expect.any(String) } });
    await api.decide(post({ approved: true }), ctx(approvalIdOf(first)));
    expect(await call("t-grant", "c1")).toMatchObject({ ok: true });
    // Honoured: a second call in the same thread runs without asking.
    expect(await call("t-grant", "c2")).toMatchObject({ ok: true });
    // Another thread still asks.
    expect(await call("t-other", "c3")).toMatchObject({ pending: { approvalId: expect.any(String) } });

    // A new definition of the tool (a release that changes it) revokes the grant: the thread is asked again.
    await services.registry.upsertBuiltins([
      { spec: { ...createTicket.spec, description: `${createTicket.spec.description} Now with labels.` }, handler: createTicket.handler },
    ]);
    expect(services.registry.get("create_ticket")?.approval).toBe("once_per_thread");
    expect(await call("t-grant", "c4")).toMatchObject({ pending: { approvalId: expect.any(String) } });
    const revoked = (await services.grants.forTool("create_ticket")).filter((g) => g.threadId === "t-grant");
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ revokedBy: "system" });
    const audit = services.database.sqlite.prepare("select type, actor from tool_events where tool = 'create_ticket' order by id").all();
    expect(audit).toEqual([
      { type: "grant_added", actor: "local" },
      { type: "grant_revoked", actor: "system" },
    ]);
  });
});

describe("expiry sweep", () => {
  it("expires pending approvals past their time, with an audit row, and emits the change", async () => {
    const id = await pendingRefund();
    services.database.sqlite.prepare("update approvals set expires_at = ? where id = ?").run(Date.now() - 1, id);
    const seen: string[] = [];
    const off = services.approvals.onChange((c) => seen.push(`${c.type}:${c.approval.id}`));
    const expired = await services.approvals.expireDue();
    off();
    expect(expired.map((a) => a.id)).toContain(id);
    expect(seen).toContain(`expired:${id}`);
    expect((await services.approvals.events(id)).map((e) => [e.type, e.actor])).toContainEqual(["expired", "system"]);
  });

  it("runs by itself on the configured interval", async () => {
    const swept = testServices({ APPROVAL_SWEEP_SECONDS: "1", APPROVAL_TTL_SECONDS: "1" });
    try {
      const result = await swept.executor.call(
        "issue_refund",
        { orderId: "9", amount: 1 },
        { callId: "sweep-1", ctx: { principal: "p", scope: "s", runId: "r", surface: "rest" } },
      );
      const id = approvalIdOf(result);
      const deadline = Date.now() + 5000;
      while ((await swept.approvals.get(id))?.status === "pending" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect((await swept.approvals.get(id))?.status).toBe("expired");
    } finally {
      swept.close();
    }
  });
});
