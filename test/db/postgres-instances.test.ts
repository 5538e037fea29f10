// Two console instances on one PostgreSQL, each with its own pool, approval store and change bus,
// tied by linkInstances: a change made on one reaches the other's listeners; what an instance
// announces itself is not heard back; a cache change on one reloads the other's; a lost listener
// connection (resync) reloads every cache.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ApprovalChange, ApprovalStore } from "@/lib/approvals";
import type { ChangeBus } from "@/lib/db/change-bus";
import { PgApprovalRows } from "@/lib/db/postgres/approvals";
import { PgChangeBus } from "@/lib/db/postgres/notify";
import { openPostgres, type PostgresHandle } from "@/lib/db/postgres/open";
import { linkInstances, type SharedCache } from "@/lib/instances";
import { createLogger } from "@/lib/log";
import { postgresDatabase } from "../support/postgres";

const database = postgresDatabase();
const handles: PostgresHandle[] = [];
const closers: Array<() => unknown> = [];
beforeAll(async () => {
  handles.push(await openPostgres(database.url, { maxConnections: 3, onConnectionError: () => {} }));
  handles.push(await openPostgres(database.url, { maxConnections: 3, onConnectionError: () => {} }));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  await Promise.all(handles.map((handle) => handle.close()));
});

/** A cache that counts its reloads and lets the test make a local change. */
function countingCache(kind: SharedCache["kind"]) {
  const listeners = new Set<() => void>();
  const cache = {
    kind,
    reloads: 0,
    async reload() {
      cache.reloads += 1;
    },
    onLocalChange(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    changeHere() {
      for (const listener of listeners) listener();
    },
  };
  return cache;
}

async function instance(name: string, handle: PostgresHandle) {
  const bus: ChangeBus = await PgChangeBus.open(database.url, handle.pool, { onError: () => {} });
  const approvals = new ApprovalStore(new PgApprovalRows(handle.db));
  const registry = countingCache("registry");
  const settings = countingCache("settings");
  const heard: ApprovalChange[] = [];
  approvals.onChange((change) => heard.push(change));
  const unlink = linkInstances({ instance: name, bus, approvals, caches: [registry, settings], logger: createLogger("silent") });
  closers.push(() => bus.close(), unlink);
  return { name, bus, approvals, registry, settings, heard };
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<number> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now() - started;
}

const request = {
  principal: "alice",
  scope: "thread-1",
  callId: "call-1",
  tool: "refund",
  args: { amount: 5 },
  surface: "agui",
};

describe("console instances linked over PostgreSQL", () => {
  it("a request on A and a decision on B reach the other instance's listeners, each once, with the approval as stored", async () => {
    const a = await instance("a", handles[0]!);
    const b = await instance("b", handles[1]!);
    const asked = await a.approvals.request({ ...request, callId: `c-${Date.now()}` });
    await until(() => b.heard.some((change) => change.approval.id === asked.id));
    expect(b.heard.at(-1)).toMatchObject({ type: "requested", heard: true, approval: { id: asked.id, status: "pending" } });

    await b.approvals.decide(asked.id, { approved: true, decidedBy: "operator-on-b" });
    await until(() => a.heard.some((change) => change.approval.id === asked.id && change.type === "decided"));
    const decided = a.heard.filter((change) => change.type === "decided");
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({ heard: true, approval: { status: "approved", decidedBy: "operator-on-b" } });

    // Nobody hears its own change back: A heard its request once (locally), B its decision once.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(a.heard.filter((change) => change.type === "requested")).toHaveLength(1);
    expect(b.heard.filter((change) => change.type === "decided")).toHaveLength(1);
  });

  it("a cache changed on one instance is reloaded on the other only, and a resync reloads every cache", async () => {
    const a = await instance("a", handles[0]!);
    const b = await instance("b", handles[1]!);
    a.registry.changeHere();
    await until(() => b.registry.reloads === 1);
    b.settings.changeHere();
    await until(() => a.settings.reloads === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect([a.registry.reloads, a.settings.reloads, b.registry.reloads, b.settings.reloads]).toEqual([0, 1, 1, 0]);

    // End A's listening connection: the bus reconnects and A re-reads everything it caches.
    const pid = (a.bus as PgChangeBus).listenerPid;
    await handles[1]!.pool.query("select pg_terminate_backend($1)", [pid]);
    await until(() => a.registry.reloads === 1 && a.settings.reloads === 2, 10_000);
  });
});
