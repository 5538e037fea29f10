import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerRemoteAgent, type AguiRemoteDeps } from "@/lib/integrations/agui-remote";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { eventsOf, expectValidRun, observeRun, RecordingAgent, userMessage } from "../support/agui-client";

// Every way a remote AG-UI agent can fail ends the local run with exactly one RUN_ERROR that says
// why (checked by the real @ag-ui/client on the local hop), and the source's status says it too.
// The remotes here are small node:http servers on 127.0.0.1 that misbehave on purpose.

let local: AguiTestServer;
let hostile: http.Server;
let hostileUrl: string;
/** What the hostile server does for each path. */
const behaviours: Record<string, (res: http.ServerResponse) => void> = {
  "/unauthorized": (res) => res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"message":"no"}}'),
  // Refuses the first request, then runs: a plain run that finishes.
  "/flaky": (res) => {
    if (flaky++ === 0) return void res.writeHead(401).end();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(sse({ type: "RUN_STARTED", threadId: "t", runId: "r" }));
    res.end(sse({ type: "RUN_FINISHED", threadId: "t", runId: "r" }));
  },
  "/html": (res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>hello</html>"),
  "/server-error": (res) =>
    res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "x".repeat(20_000) } })),
  // Starts a run and a message, then hangs up.
  "/breaks-off": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(sse({ type: "RUN_STARTED", threadId: "t", runId: "r" }));
    res.write(sse({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" }));
    res.end(sse({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hel" }));
  },
  // An event the protocol does not allow (a TEXT_MESSAGE_CONTENT with no messageId).
  "/malformed": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(sse({ type: "RUN_STARTED", threadId: "t", runId: "r" }));
    res.end(sse({ type: "TEXT_MESSAGE_CONTENT", delta: 42 }));
  },
  // Events in an order the verifier refuses (content for a message never started).
  "/out-of-order": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(sse({ type: "RUN_STARTED", threadId: "t", runId: "r" }));
    res.end(sse({ type: "TEXT_MESSAGE_CONTENT", messageId: "nope", delta: "x" }));
  },
  // Starts, then says nothing more.
  "/silent": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(sse({ type: "RUN_STARTED", threadId: "t", runId: "r" }));
  },
};
let flaky = 0;
const sse = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`;

beforeAll(async () => {
  local = await startAguiServer();
  hostile = http.createServer((req, res) => {
    req.resume();
    const behave = behaviours[new URL(req.url ?? "/", "http://x").pathname];
    if (behave) behave(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
});
afterAll(async () => {
  hostile?.closeAllConnections();
  await new Promise((resolve) => hostile?.close(resolve));
  await local?.close();
});

/** A remote agent source pointing at `url` (kept as a row, as if added earlier), with short limits. */
async function remoteAt(url: string, options: { allow?: string[]; headers?: Record<string, string> } = { allow: ["127.0.0.1"] }) {
  const { services } = local;
  const name = `r${randomUUID().slice(0, 8)}`;
  const source = await services.sources.create({
    kind: "agui",
    name,
    location: url,
    authSecret: options.headers ? JSON.stringify({ headers: options.headers }) : null,
    options: options.allow ? { allow: options.allow } : {},
  });
  const deps: AguiRemoteDeps = { ...services, limits: { idleMs: 400, runMs: 60_000, maxBytes: 1024 * 1024 } };
  const info = registerRemoteAgent(deps, source);
  return { sourceId: source.id, path: `/api/agui/${encodeURIComponent(info.name)}` };
}

/** One chat run through the local console against the remote at `url`: the real client's view and the RUN_ERROR. */
async function failedRun(url: string, options?: Parameters<typeof remoteAt>[1]) {
  const { sourceId, path } = await remoteAt(url, options);
  const agent = new RecordingAgent(local.url, { path });
  agent.addMessage(userMessage("hello"));
  const run = await observeRun(agent);
  expectValidRun(run);
  expect(run.error).toBeDefined();
  expect(await local.services.runs.getRun(run.input.runId)).toMatchObject({ status: "error", error: run.error!.message });
  return { run, error: run.error!, source: (await local.services.sources.get(sourceId))! };
}

describe("a remote agent that fails", () => {
  it("unreachable: RUN_ERROR remote_unreachable, and the source shows the error", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { error, source } = await failedRun(`http://127.0.0.1:${port}/api/agui/demo`);
    expect(error).toMatchObject({ code: "remote_unreachable" });
    expect(error.message).toBe(
      `The remote agent at http://127.0.0.1:${port}/api/agui/demo could not be reached (ECONNREFUSED). Check that it runs and that the URL is right.`,
    );
    expect(source).toMatchObject({ status: "error", statusMessage: error.message });
  });

  it("401: RUN_ERROR remote_unauthorized naming the credentials; a later good run puts the source back to ok", async () => {
    const { sourceId, path } = await remoteAt(`${hostileUrl}/flaky`, { allow: ["127.0.0.1"], headers: { Authorization: "Bearer wrong" } });
    const agent = new RecordingAgent(local.url, { path });
    agent.addMessage(userMessage("hello"));
    const refused = await observeRun(agent);
    expectValidRun(refused);
    expect(refused.error).toMatchObject({ code: "remote_unauthorized" });
    expect(refused.error!.message).toContain("refused the console's credentials (HTTP 401)");
    expect(await local.services.sources.get(sourceId)).toMatchObject({ status: "error", statusMessage: refused.error!.message });
    const good = await observeRun(agent);
    expect(good.finished).toMatchObject({ threadId: agent.threadId, runId: good.input.runId });
    expect(await local.services.sources.get(sourceId)).toMatchObject({ status: "ok", statusMessage: null });
  });

  it("a refused address: RUN_ERROR remote_address_refused, without connecting", async () => {
    const started = Date.now();
    const { error } = await failedRun("http://10.255.255.1/api/agui/demo", {});
    expect(error).toMatchObject({ code: "remote_address_refused" });
    expect(error.message).toContain("10.255.255.1 is a private address");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("an answer that is no event stream, or an HTTP error: RUN_ERROR saying so, with at most a short excerpt", async () => {
    const html = await failedRun(`${hostileUrl}/html`);
    expect(html.error).toMatchObject({ code: "remote_bad_stream" });
    expect(html.error.message).toContain('answered "text/html", not an AG-UI event stream');
    const failed = await failedRun(`${hostileUrl}/server-error`);
    expect(failed.error).toMatchObject({ code: "remote_http_error" });
    // Only a short excerpt of what the remote said reaches the chat.
    expect(failed.error.message).toContain("answered HTTP 500: ");
    expect(failed.error.message.length).toBeLessThan(400);
    const missing = await failedRun(`${hostileUrl}/nothing-here`);
    expect(missing.error).toMatchObject({ code: "remote_not_found" });
  });

  it("a stream that breaks off: the open message is closed, then one RUN_ERROR", async () => {
    const { run, error } = await failedRun(`${hostileUrl}/breaks-off`);
    expect(error).toMatchObject({
      code: "remote_bad_stream",
      message: expect.stringContaining("ended its stream before the run finished"),
    });
    expect(eventsOf(run, EventType.TEXT_MESSAGE_END).map((e) => e.messageId)).toEqual(["m1"]);
    expect(run.events.map((e) => e.type).slice(-3)).toEqual([
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_ERROR,
    ]);
  });

  it("a malformed event or an event out of order: RUN_ERROR remote_bad_stream", async () => {
    const malformed = await failedRun(`${hostileUrl}/malformed`);
    expect(malformed.error).toMatchObject({ code: "remote_bad_stream", message: expect.stringContaining("does not allow") });
    const disordered = await failedRun(`${hostileUrl}/out-of-order`);
    expect(disordered.error).toMatchObject({ code: "remote_bad_stream", message: expect.stringContaining("broke the AG-UI event order") });
  });

  it("a remote that falls silent: RUN_ERROR remote_timeout after the idle limit", async () => {
    const { error } = await failedRun(`${hostileUrl}/silent`);
    expect(error).toMatchObject({ code: "remote_timeout", message: expect.stringContaining("sent nothing for") });
  });
});
