import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { expectValidRun, observeRun, parseFrames, postRun, RecordingAgent, userMessage } from "../support/agui-client";
import { rawRequest } from "../support/raw-http";

const MAX_BODY = 4096;
let local: AguiTestServer;
/** A console bound to every interface: nobody is anonymous there. */
let exposed: AguiTestServer;

beforeAll(async () => {
  local = await startAguiServer({ AGUI_MAX_BODY_BYTES: String(MAX_BODY) });
  exposed = await startAguiServer({ HOST: "0.0.0.0" });
});
afterAll(async () => {
  await local?.close();
  await exposed?.close();
});

function input(overrides: Record<string, unknown> = {}) {
  return {
    threadId: `t-${randomUUID()}`,
    runId: `r-${randomUUID()}`,
    protocolVersion: "1.0",
    messages: [userMessage("hello")],
    tools: [],
    context: [],
    state: {},
    ...overrides,
  };
}

async function errorOf(response: Response | { status: number; body: string }) {
  const body = response instanceof Response ? await response.text() : response.body;
  return {
    status: response.status,
    ...(JSON.parse(body) as { error: { code: string; message: string; issues?: Array<{ path: string; message: string }> } }),
  };
}

describe("statuses before the stream, over real HTTP", () => {
  it("421 for a Host the console does not serve, before anything else", async () => {
    const response = await rawRequest(`${local.url}/api/agui/demo`, {
      headers: { host: "evil.example", "content-type": "application/json" },
      body: JSON.stringify(input()),
    });
    expect(await errorOf(response)).toMatchObject({
      status: 421,
      error: { code: "host_not_served", message: expect.stringContaining("evil.example") },
    });
    const withToken = await rawRequest(`${exposed.url}/api/agui/demo`, {
      headers: {
        host: "evil.example:3000",
        authorization: `Bearer ${(await exposed.services.tokens.create(`h-${Date.now()}`)).token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(input()),
    });
    expect(withToken.status).toBe(421);
    const list = await rawRequest(`${local.url}/api/agui`, { method: "GET", headers: { host: "evil.example" } });
    expect(list.status).toBe(421);
  });

  it("401 without a token when the console is not bound to loopback, and for a wrong or revoked token anywhere", async () => {
    expect(await errorOf(await postRun(exposed.url, input()))).toMatchObject({
      status: 401,
      error: { code: "unauthenticated", message: expect.stringContaining("npm run token") },
    });
    expect((await fetch(`${exposed.url}/api/agui`)).status).toBe(401);
    expect((await postRun(local.url, input(), { token: "aguic_not-a-real-token" })).status).toBe(401);
    expect((await postRun(local.url, input(), { headers: { authorization: "Basic dXNlcjpwYXNz" } })).status).toBe(401);
    const { token } = await local.services.tokens.create("soon-revoked");
    expect((await postRun(local.url, input(), { token })).status).toBe(200);
    expect(await local.services.tokens.revoke("soon-revoked")).toBe(1);
    expect(await errorOf(await postRun(local.url, input(), { token }))).toMatchObject({ status: 401, error: { code: "unauthenticated" } });
  });

  it("403 for a token without the agui scope, and on another caller's thread", async () => {
    const toolsOnly = (await exposed.services.tokens.create("tools-only", ["tools"])).token;
    expect(await errorOf(await postRun(exposed.url, input(), { token: toolsOnly }))).toMatchObject({
      status: 403,
      error: { code: "forbidden", message: expect.stringContaining('"agui"') },
    });

    const alice = (await exposed.services.tokens.create("alice")).token;
    const bob = (await exposed.services.tokens.create("bob")).token;
    const threadId = `t-${randomUUID()}`;
    const first = await postRun(exposed.url, input({ threadId }), { token: alice });
    expect(first.status).toBe(200);
    await first.text();
    const intruder = input({ threadId });
    expect(await errorOf(await postRun(exposed.url, intruder, { token: bob }))).toMatchObject({
      status: 403,
      error: { code: "forbidden" },
    });
    // Refused before the run was recorded: the run id is still free for its owner.
    expect(await exposed.services.runs.getRun(intruder.runId)).toBeUndefined();
    expect((await postRun(exposed.url, intruder, { token: alice })).status).toBe(200);
  });

  it("404 for an unknown agent", async () => {
    expect(await errorOf(await postRun(local.url, input(), { path: "/api/agui/no-such-agent" }))).toMatchObject({
      status: 404,
      error: { code: "agent_not_found", message: expect.stringContaining("no-such-agent") },
    });
  });

  it("409 for a run id used before", async () => {
    const body = input();
    const first = await postRun(local.url, body);
    expect(first.status).toBe(200);
    await first.text();
    expect(await errorOf(await postRun(local.url, { ...body, messages: [userMessage("again")] }))).toMatchObject({
      status: 409,
      error: { code: "run_id_taken" },
    });
  });

  it("413 for a body over the limit, declared or chunked without a length", async () => {
    const big = input({ messages: [userMessage("x".repeat(MAX_BODY))] });
    expect(await errorOf(await postRun(local.url, big))).toMatchObject({ status: 413, error: { code: "payload_too_large" } });
    const text = JSON.stringify(big);
    const chunked = await rawRequest(`${local.url}/api/agui/demo`, {
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      body: [text.slice(0, 1000), text.slice(1000, 3000), text.slice(3000)],
    });
    expect(await errorOf(chunked)).toMatchObject({ status: 413, error: { code: "payload_too_large" } });
    expect(await local.services.runs.getRun(big.runId)).toBeUndefined();
    // A small chunked body is read whole and runs.
    const small = JSON.stringify(input());
    const ok = await rawRequest(`${local.url}/api/agui/demo`, {
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      body: [small.slice(0, 20), small.slice(20)],
    });
    expect(ok.status).toBe(200);
  });

  it("415 for a body that is not JSON", async () => {
    const response = await fetch(`${local.url}/api/agui/demo`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify(input()),
    });
    expect(await errorOf(response)).toMatchObject({ status: 415, error: { code: "unsupported_media_type" } });
  });

  it("400 invalid_json for a body that is not JSON, as on every endpoint", async () => {
    const error = await errorOf(await postRun(local.url, '{"threadId": "t1", '));
    expect(error).toEqual({ status: 400, error: { code: "invalid_json", message: "The body is not valid JSON" } });
  });

  it("422 for invalid input, with the issues listed", async () => {
    const cases: Array<[string, unknown, Array<{ path: string; message?: unknown }>]> = [
      ["missing threadId", { ...input(), threadId: undefined }, [{ path: "/threadId" }]],
      ["too-long thread id", input({ threadId: "t".repeat(201) }), [{ path: "/threadId", message: "must be 1 to 200 characters" }]],
      ["too-long run id", input({ runId: "r".repeat(201) }), [{ path: "/runId", message: "must be 1 to 200 characters" }]],
      [
        "too many messages",
        input({ messages: Array.from({ length: 2001 }, (_, i) => ({ id: `m${i}`, role: "user", content: "." })) }),
        [{ path: "/messages", message: "at most 2000 messages per run" }],
      ],
      [
        "duplicate resume ids",
        input({
          resume: [
            { interruptId: "apr_1", status: "cancelled" },
            { interruptId: "apr_1", status: "resolved", payload: { approved: true } },
          ],
        }),
        [{ path: "/resume/1/interruptId", message: "duplicates an earlier entry" }],
      ],
      [
        "a resume status the protocol does not know",
        input({ resume: [{ interruptId: "apr_1", status: "approved" }] }),
        [{ path: "/resume/0/status" }],
      ],
    ];
    for (const [name, body, issues] of cases) {
      const huge = name === "too many messages";
      const target = huge ? await startAguiServer() : local;
      try {
        const response = await postRun(target.url, body);
        const error = await errorOf(response);
        expect({ name, status: error.status, code: error.error.code }).toEqual({ name, status: 422, code: "invalid_body" });
        expect(error.error.issues, name).toEqual(expect.arrayContaining(issues.map((i) => expect.objectContaining(i))));
      } finally {
        if (huge) await target.close();
      }
    }
  });

  it("200 text/event-stream with LF-only frames and the no-transform headers otherwise", async () => {
    const body = input();
    const response = await postRun(local.url, body);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const raw = await response.text();
    expect(raw).not.toContain("\r");
    expect(raw).toMatch(/^data: \{"type":"RUN_STARTED"/);
    for (const frame of raw.split("\n\n").slice(0, -1)) expect(frame).toMatch(/^data: \{.*\}$/);
    expect(parseFrames(raw).at(-1)).toMatchObject({ type: "RUN_FINISHED", threadId: body.threadId, runId: body.runId });
  });

  it("GET /api/agui lists the agents with their capabilities", async () => {
    const response = await fetch(`${local.url}/api/agui`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { default: string; agents: Array<{ name: string; capabilities: Record<string, boolean> }> };
    expect(body.default).toBe("demo");
    expect(body.agents.map((a) => a.name)).toEqual(["demo", "plain-chat", "assistant", "openai-agents-demo", "langgraph-demo"]);
    expect(body.agents[0]!.capabilities).toMatchObject({ tools: true, clientTools: true, approvals: true });
  });

  it("a token made with TokenStore runs agents; its principal is recorded on the thread, the run and the approval", async () => {
    const { token } = await exposed.services.tokens.create("ci-bot");
    const client = new RecordingAgent(exposed.url, { token });
    client.addMessage(userMessage("refund order 77 for 3 EUR"));
    const run = await observeRun(client);
    expectValidRun(run);
    const [interrupt] = client.pendingInterrupts;
    expect(interrupt?.metadata).toMatchObject({ principal: "token:ci-bot" });
    expect(await exposed.services.runs.getRun(run.input.runId)).toMatchObject({ principal: "token:ci-bot", status: "interrupted" });
    expect(await exposed.services.runs.getThread(client.threadId)).toMatchObject({ principal: "token:ci-bot" });
    expect(await exposed.services.approvals.get(interrupt!.id)).toMatchObject({ principal: "token:ci-bot", status: "pending" });
    expect((await exposed.services.tokens.list()).find((t) => t.name === "ci-bot")?.lastUsedAt).toEqual(expect.any(Number));
  });
});
