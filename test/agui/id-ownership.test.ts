import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAguiServer, type AguiTestServer } from "../support/agui-server";
import { postRun, userMessage } from "../support/agui-client";

/**
 * Thread and run ids are the client's to choose (AG-UI), and they are global: an id another caller
 * used cannot be used again, so a refusal tells that much and no more. These tests pin the rest:
 * the answer is the same whoever owns the id, it names nobody and nothing of the other caller's
 * thread or run, and a refused request writes nothing.
 */
let server: AguiTestServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  // Bound to every interface: every caller has a token, so there are two principals.
  server = await startAguiServer({ HOST: "0.0.0.0" });
  alice = (await server.services.tokens.create("alice")).token;
  bob = (await server.services.tokens.create("bob")).token;
});
afterAll(() => server?.close());

function input(overrides: Record<string, unknown> = {}) {
  return {
    threadId: `t-${randomUUID()}`,
    runId: `r-${randomUUID()}`,
    protocolVersion: "1.0",
    messages: [userMessage("a secret title")],
    tools: [],
    context: [],
    state: {},
    ...overrides,
  };
}

async function answer(response: Response): Promise<{ status: number; body: string }> {
  return { status: response.status, body: await response.text() };
}

describe("ids another caller used", () => {
  it("a reused run id gets the very same answer whether the run is the caller's own or another caller's", async () => {
    const alicesRun = input();
    await (await postRun(server.url, alicesRun, { token: alice })).text();
    const bobsRun = input();
    await (await postRun(server.url, bobsRun, { token: bob })).text();

    // Each reuses one run id on a new thread of their own: Bob his own, Bob Alice's.
    const sameId = `r-${randomUUID()}`;
    const own = await answer(await postRun(server.url, input({ runId: bobsRun.runId }), { token: bob }));
    const other = await answer(await postRun(server.url, input({ runId: alicesRun.runId }), { token: bob }));
    expect(own.status).toBe(409);
    expect(other.status).toBe(own.status);
    expect(other.body.replaceAll(alicesRun.runId, sameId)).toBe(own.body.replaceAll(bobsRun.runId, sameId));
    expect(other.body).not.toMatch(/alice|secret|demo|finished|t-/i);
  });

  it("another caller's thread is refused without a word about its owner, title or runs, and nothing is written", async () => {
    const alicesRun = input();
    await (await postRun(server.url, alicesRun, { token: alice })).text();
    const before = await server.services.runs.getThread(alicesRun.threadId);

    const intruder = input({ threadId: alicesRun.threadId, messages: [userMessage("bob's words")] });
    const refused = await answer(await postRun(server.url, intruder, { token: bob }));
    expect(refused.status).toBe(403);
    expect(refused.body).not.toMatch(/alice|secret|demo|r-/i);
    expect(await server.services.runs.getThread(alicesRun.threadId)).toEqual(before);
    expect(await server.services.runs.getRun(intruder.runId)).toBeUndefined();
    expect((await server.services.runs.listRuns({ threadId: alicesRun.threadId })).items).toHaveLength(1);
  });

  it("a reused run id on a new thread creates no thread for the caller", async () => {
    const alicesRun = input();
    await (await postRun(server.url, alicesRun, { token: alice })).text();
    const attempt = input({ runId: alicesRun.runId });
    expect((await postRun(server.url, attempt, { token: bob })).status).toBe(409);
    expect(await server.services.runs.getThread(attempt.threadId)).toBeUndefined();
  });
});
