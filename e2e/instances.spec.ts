// Two console instances (the production build, as `npm start` runs it) on one PostgreSQL, and one
// port in front of them: what one instance does, the other serves. The real @ag-ui/client runs
// the chats; the inbox is looked at in Chromium through the shared port.
import { buildResumeArray, HttpAgent } from "@ag-ui/client";
import type { AGUIEvent, Interrupt, Message } from "@ag-ui/core";
import { expect, test } from "@playwright/test";
import { freshPostgresDatabase, startBalancer, startInstance, type ConsoleInstance } from "./support/instances";

test.describe.configure({ mode: "serial" });

let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let a: ConsoleInstance;
let b: ConsoleInstance;
let balancer: Awaited<ReturnType<typeof startBalancer>>;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  database = await freshPostgresDatabase();
  const env = { DATABASE_URL: database.url, APPROVAL_SWEEP_SECONDS: "1" };
  // A streams slowly, so a run on it is still going when the last test kills it.
  a = await startInstance("a", { ...env, AGENT_STREAM_DELAY_MS: "60" });
  b = await startInstance("b", { ...env, AGENT_STREAM_DELAY_MS: "0" });
  balancer = await startBalancer([a.url, b.url]);
});

test.afterAll(async () => {
  await balancer?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await database?.drop();
});

/** Run the demo agent on `base` with the real client; answers its events and the client. */
async function chat(
  base: string,
  options: { threadId?: string; text?: string; messages?: Message[]; interrupts?: Interrupt[]; approve?: boolean },
) {
  const agent = new HttpAgent({
    url: `${base}/api/agui/demo`,
    threadId: options.threadId ?? crypto.randomUUID(),
    initialMessages: options.messages ?? [],
  });
  if (options.text) agent.addMessage({ id: crypto.randomUUID(), role: "user", content: options.text });
  const events: AGUIEvent[] = [];
  let resume;
  if (options.interrupts) {
    agent.pendingInterrupts = options.interrupts;
    resume = buildResumeArray(
      agent.pendingInterrupts,
      Object.fromEntries(options.interrupts.map((i) => [i.id, { status: "resolved", payload: { approved: options.approve ?? true } }])),
    );
  }
  await agent.runAgent({ resume }, { onEvent: ({ event }) => void events.push(event as AGUIEvent) });
  return { agent, events, threadId: agent.threadId };
}

async function pendingApprovalOf(base: string, threadId: string): Promise<{ id: string }> {
  const body = (await (await fetch(`${base}/api/approvals?threadId=${threadId}&status=pending`)).json()) as {
    items: Array<{ id: string }>;
  };
  expect(body.items).toHaveLength(1);
  return body.items[0]!;
}

test("a run paused on A is resumed through B: B reads the thread and its interrupt, runs the approved call", async () => {
  const paused = await chat(a.url, { text: "refund order 9 for 2 EUR" });
  const end = paused.events.at(-1) as { type: string; outcome?: { type: string } };
  expect(end).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "interrupt" } });

  const thread = (await (await fetch(`${b.url}/api/threads/${paused.threadId}`)).json()) as {
    messages: Message[];
    interrupts: Interrupt[];
  };
  expect(thread.interrupts).toHaveLength(1);
  const resumed = await chat(b.url, { threadId: paused.threadId, messages: thread.messages, interrupts: thread.interrupts });
  expect(resumed.events.map((e) => e.type)).toContain("TOOL_CALL_RESULT");
  const text = resumed.events
    .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
    .map((e) => (e as { delta: string }).delta)
    .join("");
  expect(text).toMatch(/^Refund RF-[0-9A-F]+ issued: 2 EUR for order 9\.$/);
  // Resumed once: no interrupt is left open on the thread, so no instance has it to resume again.
  const after = (await (await fetch(`${a.url}/api/threads/${paused.threadId}`)).json()) as {
    interrupts: Interrupt[];
    lastRun: { status: string };
  };
  expect(after.interrupts).toEqual([]);
  expect(after.lastRun.status).toBe("finished");
});

test("a decision on B reaches the inbox stream open on A", async () => {
  const stream = await fetch(`${a.url}/api/approvals/events`);
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const waitFor = async (pattern: RegExp) => {
    const deadline = Date.now() + 10_000;
    while (!pattern.test(seen)) {
      const { value, done } = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`not heard: ${pattern}; heard ${seen}`)), deadline - Date.now()),
        ),
      ]);
      if (done) throw new Error("the stream ended");
      seen += value;
    }
    return performance.now();
  };
  await waitFor(/"type":"hello"/);
  const paused = await chat(b.url, { text: "refund order 12 for 3 EUR" });
  const approval = await pendingApprovalOf(b.url, paused.threadId);
  await waitFor(new RegExp(`"id":"${approval.id}"[^\\n]*"status":"pending"`));

  const decided = await fetch(`${b.url}/api/approvals/${approval.id}/decision`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ approved: false, reason: "not today" }),
  });
  expect(decided.status).toBe(200);
  const at = performance.now();
  const heardAt = await waitFor(new RegExp(`"id":"${approval.id}"[^\\n]*"status":"denied"`));
  console.log(`decision on B heard on A ${Math.round(heardAt - at)} ms after B answered`);
  await reader.cancel();
  const onA = (await (await fetch(`${a.url}/api/approvals/${approval.id}`)).json()) as { approval: { status: string; reason: string } };
  expect(onA.approval).toMatchObject({ status: "denied", reason: "not today" });
});

test("50 concurrent decisions of one approval across both instances: exactly one is taken", async () => {
  const paused = await chat(a.url, { text: "refund order 50 for 1 EUR" });
  const approval = await pendingApprovalOf(a.url, paused.threadId);
  const statuses = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      fetch(`${(i % 2 ? a : b).url}/api/approvals/${approval.id}/decision`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ approved: i % 3 !== 0, reason: `decision ${i}` }),
      }).then(async (response) => ({ status: response.status, body: await response.text() })),
    ),
  );
  expect(statuses.filter((s) => s.status === 200)).toHaveLength(1);
  expect(statuses.filter((s) => s.status === 409)).toHaveLength(49);
  const detail = (await (await fetch(`${b.url}/api/approvals/${approval.id}`)).json()) as { events: Array<{ type: string }> };
  expect(detail.events.filter((e) => e.type === "decided")).toHaveLength(1);
});

test("the inbox through one port in front of both shows the approvals of both", async ({ page }) => {
  const first = await chat(a.url, { text: "refund order 71 for 4 EUR" });
  const second = await chat(b.url, { text: "refund order 72 for 6 EUR" });
  const ids = [(await pendingApprovalOf(a.url, first.threadId)).id, (await pendingApprovalOf(b.url, second.threadId)).id];
  await page.setViewportSize({ width: 1280, height: 900 });
  for (let i = 0; i < 2; i++) {
    // Each page load goes to the next instance in turn.
    await page.goto(`${balancer.url}/approvals`);
    for (const id of ids) await expect(page.locator(`[data-approval-id="${id}"]`)).toBeVisible();
  }
  await page.screenshot({ path: "test-results/instances-inbox.png" });
});

test("A killed mid-run: B reports the run ended, follows it to its end, and A's pending approval is answered on B", async () => {
  const waiting = await chat(a.url, { text: "refund order 90 for 9 EUR" });
  const approval = await pendingApprovalOf(a.url, waiting.threadId);

  const runId = crypto.randomUUID();
  const threadId = crypto.randomUUID();
  const body = {
    threadId,
    runId,
    messages: [{ id: "u1", role: "user", content: "tell me about the weather in Lima, Oslo, Quito, Cairo and Perth" }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  const running = fetch(`${a.url}/api/agui/demo`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  })
    .then((r) => r.text())
    .catch(() => "");
  // B sees the run going, and follows it.
  await expect
    .poll(
      async () =>
        ((await (await fetch(`${b.url}/api/runs/${runId}/events`)).json()) as { run?: { status: string }; events?: unknown[] }).events
          ?.length ?? 0,
      { timeout: 10_000 },
    )
    .toBeGreaterThan(0);
  const following = fetch(`${b.url}/api/runs/${runId}/stream`).then((r) => r.text());

  await a.kill();
  void running;
  await expect
    .poll(async () => ((await (await fetch(`${b.url}/api/runs/${runId}/events`)).json()) as { run: { status: string } }).run.status, {
      timeout: 45_000,
      intervals: [500],
    })
    .toBe("cancelled");
  const followed = await following;
  expect(followed).toContain('"type":"RUN_STARTED"');
  expect(followed.trimEnd().split("\n\n").at(-1)).toContain('"type":"RUN_ERROR"');

  const decided = await fetch(`${b.url}/api/approvals/${approval.id}/decision`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ approved: true }),
  });
  expect(decided.status).toBe(200);
});
