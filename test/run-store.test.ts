import { execFileSync } from "node:child_process";
import path from "node:path";
import type { AGUIEvent } from "@ag-ui/core";
import { afterAll, describe, expect, it, vi } from "vitest";
import { SqliteRunStore } from "@/lib/db/runs";
import { tempDir, testServices } from "./support/services";

const services = testServices();
afterAll(() => services.close());

const event = (i: number) =>
  ({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: `word ${i} `, timestamp: 1_800_000_000_000 + i }) as AGUIEvent;
const rows = (runId: string) =>
  services.database.sqlite.prepare("select seq, count, typeof(events) as kind from run_events where run_id = ? order by seq").all(runId);

it("keeps every event of a run in order: batches wait in memory and a run's consecutive ones become one row", async () => {
  await services.runs.start({ runId: "r-store", threadId: "t-store", agent: "demo", principal: "local" });
  services.runs.append("r-store", 0, [0, 1, 2].map(event));
  services.runs.append(
    "r-store",
    3,
    Array.from({ length: 500 }, (_, i) => event(3 + i)),
  );
  expect(rows("r-store")).toEqual([]);

  // A read writes what waits first.
  const events = await services.runs.events("r-store");
  expect(rows("r-store")).toEqual([{ seq: 0, count: 503, kind: "text" }]);
  expect(events.map((e) => (e as { delta: string }).delta)).toEqual(Array.from({ length: 503 }, (_, i) => `word ${i} `));

  services.runs.append("r-store", 503, [event(503)]);
  expect((await services.runs.events("r-store", 500)).map((e) => (e as { timestamp: number }).timestamp - 1_800_000_000_000)).toEqual([
    501, 502, 503,
  ]);
  expect(rows("r-store")).toEqual([
    { seq: 0, count: 503, kind: "text" },
    { seq: 503, count: 1, kind: "text" },
  ]);
});

it("deflates long rows, writes by itself after a moment, and before the run's end is recorded", async () => {
  vi.useFakeTimers();
  try {
    await services.runs.start({ runId: "r-long", threadId: "t-store", agent: "demo", principal: "local" });
    // Distinct deltas: a record long enough to be deflated.
    services.runs.append(
      "r-long",
      0,
      Array.from({ length: 3000 }, (_, i) => ({ ...event(i), delta: `${i.toString(36)} ` }) as AGUIEvent),
    );
    vi.advanceTimersByTime(150);
    expect(rows("r-long")).toEqual([{ seq: 0, count: 3000, kind: "blob" }]);

    services.runs.append("r-long", 3000, [event(3000)]);
    await services.runs.finish("r-long", { status: "finished", outcome: { type: "success" } });
    expect(rows("r-long")).toHaveLength(2);
    expect(await services.runs.events("r-long")).toHaveLength(3001);
    expect(await services.runs.getRun("r-long")).toMatchObject({ status: "finished", outcome: { type: "success" } });
  } finally {
    vi.useRealTimers();
  }
});

it("deflates a row that grows long batch by batch, non-ASCII text included, and reads back every event as it was", async () => {
  await services.runs.start({ runId: "r-grow", threadId: "t-store", agent: "demo", principal: "local" });
  const texts = ["déjà vu ", "日本語 ", "🙂 ", '"quoted" \\ ', "line\nbreak "];
  const sent = Array.from({ length: 1200 }, (_, i) => ({ ...event(i), delta: `${texts[i % texts.length]}${i} ` }) as AGUIEvent);
  // Short batches at first (kept as text), then the row passes the length where it is deflated.
  for (let seq = 0; seq < sent.length; seq += 40) services.runs.append("r-grow", seq, sent.slice(seq, seq + 40));
  expect(await services.runs.events("r-grow")).toEqual(sent);
  expect(rows("r-grow")).toEqual([{ seq: 0, count: 1200, kind: "blob" }]);
});

it("reads rows written as plain JSON arrays of events, as earlier versions stored them", async () => {
  await services.runs.start({ runId: "r-old", threadId: "t-store", agent: "demo", principal: "local" });
  services.database.sqlite
    .prepare("insert into run_events (run_id, seq, count, events, created_at, updated_at) values (?, ?, ?, ?, ?, ?)")
    .run("r-old", 0, 2, JSON.stringify([event(0), event(1)]), 1, 1);
  expect(await services.runs.events("r-old")).toEqual([event(0), event(1)]);
});

it("reports a write that fails and drops its events without throwing", async () => {
  const failures: string[][] = [];
  const store = new SqliteRunStore(services.database.db, (_error, runIds) => failures.push(runIds));
  // No such run: the foreign key refuses the row.
  store.append("r-missing", 0, [event(0)]);
  await expect(store.flush()).resolves.toBeUndefined();
  expect(failures).toEqual([["r-missing"]]);
  expect(await store.events("r-missing")).toEqual([]);
});

it("records the start and the end of a run, and refuses a reused run id without touching anything", async () => {
  await services.runs.start({ runId: "r-life", threadId: "t-life", agent: "demo", principal: "local", title: "First words" });
  expect(await services.runs.getThread("t-life")).toMatchObject({ title: "First words", messages: [] });
  await expect(services.runs.start({ runId: "r-life", threadId: "t-other", agent: "demo", principal: "local" })).rejects.toThrow(
    /exists already/,
  );
  expect(await services.runs.getThread("t-other")).toBeUndefined();

  await services.runs.finish("r-life", {
    status: "interrupted",
    outcome: { type: "interrupt" },
    messages: [{ id: "u", role: "user", content: "hi" }],
    state: { done: [] },
    toolCallCount: 2,
  });
  expect(await services.runs.getRun("r-life")).toMatchObject({ status: "interrupted", toolCallCount: 2, finishedAt: expect.any(Number) });
  expect(await services.runs.getThread("t-life")).toMatchObject({
    messages: [{ id: "u", role: "user", content: "hi" }],
    state: { done: [] },
  });

  // A later run that reports neither keeps them; a thread keeps its first title.
  await services.runs.start({ runId: "r-life-2", threadId: "t-life", agent: "demo", principal: "local", title: "Other words" });
  await services.runs.finish("r-life-2", { status: "error", error: "boom" });
  expect(await services.runs.getThread("t-life")).toMatchObject({
    title: "First words",
    messages: [{ id: "u", role: "user", content: "hi" }],
    state: { done: [] },
  });
  expect(await services.runs.getRun("r-life-2")).toMatchObject({ status: "error", error: "boom", outcome: null });
});

it("lists threads without their conversation and state, which only the thread itself reads", async () => {
  const long = Array.from({ length: 50 }, (_, i) => ({ id: `m${i}`, role: "user" as const, content: "words ".repeat(500) }));
  await services.runs.start({ runId: "r-listed", threadId: "t-listed", agent: "demo", principal: "lister", title: "Long one" });
  await services.runs.finish("r-listed", { status: "finished", messages: long, state: { big: "x".repeat(10_000) } });
  const [summary] = await services.runs.listThreads({ principal: "lister" });
  expect(Object.keys(summary!).sort()).toEqual(["agent", "createdAt", "id", "principal", "title", "updatedAt"]);
  expect(summary).toMatchObject({ id: "t-listed", title: "Long one", agent: "demo" });
  expect((await services.runs.getThread("t-listed"))!.messages).toEqual(long);
  // The list does not even read them: a column no JSON parser accepts does not stop it.
  services.database.sqlite.prepare("update threads set messages = '[not json', state = '{' where id = ?").run("t-listed");
  expect((await services.runs.listThreads({ principal: "lister" })).map((t) => t.id)).toEqual(["t-listed"]);
});

it("lists runs without the state they were given, which only the run itself reads", async () => {
  const given = { document: "text ".repeat(20_000) };
  await services.runs.start({ runId: "r-given", threadId: "t-given", agent: "demo", principal: "giver", inputState: given });
  await services.runs.finish("r-given", { status: "finished" });
  const { items } = await services.runs.listRuns({ principal: "giver" });
  expect(items.map((r) => r.id)).toEqual(["r-given"]);
  expect(items[0]).not.toHaveProperty("inputState");
  expect(items[0]).toMatchObject({ status: "finished", threadId: "t-given", agent: "demo" });
  expect((await services.runs.getRun("r-given"))!.inputState).toEqual(given);
  // The list does not even read it: a column no JSON parser accepts does not stop it.
  services.database.sqlite.prepare("update runs set input_state = '{' where id = ?").run("r-given");
  expect((await services.runs.listRuns({ principal: "giver" })).items.map((r) => r.id)).toEqual(["r-given"]);
});

it("writes the events still waiting when the process exits (as Next.js does on SIGINT and SIGTERM)", { timeout: 30_000 }, async () => {
  const file = path.join(tempDir(), "console.db");
  execFileSync(process.execPath, ["--import", "tsx", "test/support/exit-with-waiting-events.ts"], {
    cwd: path.resolve(import.meta.dirname, ".."),
    env: { ...process.env, CONSOLE_DB: file, LOG_LEVEL: "silent" },
  });
  const after = testServices({ CONSOLE_DB: file });
  try {
    expect(await after.runs.events("r-exit")).toEqual([{ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "written at exit" }]);
  } finally {
    after.close();
  }
});

describe("a failed write loses nothing of the other runs", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => event(i));
  const storedCount = (runId: string) =>
    (services.database.sqlite.prepare("select coalesce(sum(count), 0) as n from run_events where run_id = ?").get(runId) as { n: number })
      .n;

  it("a batch that cannot be written is dropped alone: the other runs' events of the same flush are stored", async () => {
    const failures: string[][] = [];
    const store = new SqliteRunStore(services.database.db, (_error, runIds) => failures.push(runIds));
    await store.start({ runId: "r-flush-ok", threadId: "t-flush", agent: "demo", principal: "local" });
    await store.start({ runId: "r-flush-bad", threadId: "t-flush", agent: "demo", principal: "local" });
    // Only the second run's row violates this trigger (a temporary one: the schema is untouched).
    services.database.sqlite.exec(
      "create temp trigger refuse_flush_bad before insert on run_events when new.run_id = 'r-flush-bad' begin select raise(abort, 'refused'); end",
    );
    try {
      store.append("r-flush-ok", 0, many(200));
      store.append("r-flush-bad", 0, many(105));
      store.append("r-flush-ok", 200, many(5));
      await store.flush();
    } finally {
      services.database.sqlite.exec("drop trigger refuse_flush_bad");
    }
    expect(storedCount("r-flush-ok")).toBe(205);
    expect(failures).toEqual([["r-flush-bad"]]);
  });

  it("a run whose end cannot be recorded leaves another run's waiting events in place, and is recorded as error", async () => {
    const failures: string[][] = [];
    const store = new SqliteRunStore(services.database.db, (_error, runIds) => failures.push(runIds));
    await store.start({ runId: "r-end-other", threadId: "t-end-a", agent: "demo", principal: "local" });
    await store.start({ runId: "r-end-bad", threadId: "t-end-b", agent: "demo", principal: "local" });
    store.append("r-end-other", 0, many(297));
    store.append("r-end-bad", 0, many(8));
    // A state nested far deeper than JSON.stringify can walk.
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 20_000; i++) at = (at.a = {}) as Record<string, unknown>;
    let thrown: unknown;
    try {
      await store.finish("r-end-bad", { status: "finished", outcome: { type: "success" }, state: deep });
    } catch (error) {
      thrown = error;
    }
    store.append("r-end-other", 297, many(8));
    await store.finish("r-end-other", { status: "finished", outcome: { type: "success" } });

    expect(storedCount("r-end-other")).toBe(305);
    expect(thrown).toBeUndefined();
    expect(storedCount("r-end-bad")).toBe(8);
    expect(await store.getRun("r-end-other")).toMatchObject({ status: "finished" });
    expect(await store.getRun("r-end-bad")).toMatchObject({
      status: "error",
      error: expect.stringMatching(/could not be stored/),
      finishedAt: expect.any(Number),
    });
    expect(failures).toEqual([["r-end-bad"]]);
  });

  it("a run whose end is refused by the database is still recorded as ended, with its events", async () => {
    const failures: string[][] = [];
    const store = new SqliteRunStore(services.database.db, (_error, runIds) => failures.push(runIds));
    await store.start({ runId: "r-end-refused", threadId: "t-end-c", agent: "demo", principal: "local" });
    await store.start({ runId: "r-end-bystander", threadId: "t-end-c", agent: "demo", principal: "local" });
    store.append("r-end-refused", 0, many(3));
    store.append("r-end-bystander", 0, many(4));
    services.database.sqlite.exec(
      "create temp trigger refuse_finished before update of status on runs when new.id = 'r-end-refused' and new.status = 'finished' begin select raise(abort, 'refused'); end",
    );
    try {
      await expect(store.finish("r-end-refused", { status: "finished", outcome: { type: "success" } })).resolves.toBeUndefined();
    } finally {
      services.database.sqlite.exec("drop trigger refuse_finished");
    }
    expect(await store.getRun("r-end-refused")).toMatchObject({ status: "error" });
    expect(storedCount("r-end-refused")).toBe(3);
    await store.flush();
    expect(storedCount("r-end-bystander")).toBe(4);
  });
});
