// Settings, agent states and sources over both dialects: the same behaviour on SQLite (a temporary
// file) and on PostgreSQL, then, on PostgreSQL, two connection pools standing for two console
// instances: a setting inserted by both at once is inserted once, a paused state taken by both at
// once is taken once, and a setting written by one is read by the other after reload().
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db";
import { AgentStates } from "@/lib/db/agent-states";
import { PgAgentStateRows } from "@/lib/db/postgres/agent-states";
import { PgSettingRows } from "@/lib/db/postgres/settings";
import { PgSourceRows } from "@/lib/db/postgres/sources";
import * as pgSchema from "@/lib/db/schema.pg";
import * as liteSchema from "@/lib/db/schema";
import { SettingsStore } from "@/lib/db/settings";
import { SourceStore } from "@/lib/db/sources";
import { countRows, freshDatabase } from "../support/database";
import { postgresDatabase, postgresPool } from "../support/postgres";

const database = postgresDatabase();
const pg = postgresPool(database);

let sqliteHandle: DatabaseHandle | undefined;
afterAll(() => sqliteHandle?.close());

interface Dialect {
  settings(now?: () => number): Promise<SettingsStore>;
  states(now?: () => number): AgentStates;
  sources(): SourceStore;
  /** Register a tool of `sourceId` straight in the tools table. */
  addTool(name: string, sourceId: string): Promise<void>;
  /** Rows of a table, counted straight from the database. */
  count(table: string): Promise<number>;
}

const tool = (name: string, sourceId: string) => ({
  name,
  title: name,
  description: "",
  inputSchema: { type: "object" },
  timeoutMs: 1000,
  targets: ["mcp"],
  tags: [],
  kind: "openapi",
  sourceId,
  digest: "d",
});

const dialects: Array<[string, () => Promise<Dialect>]> = [
  [
    "SQLite",
    async () => {
      sqliteHandle?.close();
      const handle = (sqliteHandle = freshDatabase());
      return {
        settings: async (now) => new SettingsStore(handle.db, now),
        states: (now) => new AgentStates(handle.db, now),
        sources: () => new SourceStore(handle.db),
        addTool: async (name, sourceId) => void handle.db.insert(liteSchema.tools).values(tool(name, sourceId)).run(),
        count: async (table) => countRows(handle, table),
      };
    },
  ],
  [
    "PostgreSQL",
    async () => {
      await pg.pool.query("truncate settings, agent_states, sources, tools cascade");
      return {
        settings: (now) => SettingsStore.open(new PgSettingRows(pg.db), now),
        states: (now) => new AgentStates(new PgAgentStateRows(pg.db), now),
        sources: () => new SourceStore(new PgSourceRows(pg.db, { url: database.url })),
        addTool: async (name, sourceId) => void (await pg.db.insert(pgSchema.tools).values(tool(name, sourceId))),
        count: async (table) => Number((await pg.pool.query(`select count(*) as n from ${table}`)).rows[0].n),
      };
    },
  ],
];

describe.each(dialects)("settings, agent states and sources on %s", (_name, fresh) => {
  let dialect: Dialect;
  beforeEach(async () => {
    dialect = await fresh();
  });

  it("settings: insert once, write and remove in one go, read back from the copy and from a store opened later", async () => {
    let clock = 1000;
    const settings = await dialect.settings(() => clock++);
    const heard: string[][] = [];
    settings.onChange((keys) => heard.push([...keys]));
    const value = { name: "billing", tools: ["a", "b"], nested: { n: 1.5, flag: false, none: null } };
    expect(await settings.insert("agents.billing", value, "op")).toBe(true);
    expect(await settings.insert("agents.billing", { name: "other" }, "op")).toBe(false);
    expect(settings.get("agents.billing")).toEqual(value);
    // The copy is its own: changing the caller's object changes nothing stored.
    value.tools.push("c");
    expect(settings.get("agents.billing")).toEqual({ ...value, tools: ["a", "b"] });

    await settings.write(
      new Map<string, unknown>([
        ["assistant.model", "openai:gpt-5-mini"],
        ["assistant.maxSteps", 7],
        ["agents.alpha", ["x"]],
      ]),
      "admin",
    );
    await settings.write(new Map<string, unknown>([["assistant.maxSteps", null]]), "admin");
    expect(heard).toEqual([["agents.billing"], ["assistant.model", "assistant.maxSteps", "agents.alpha"], ["assistant.maxSteps"]]);
    expect(settings.get("assistant.maxSteps")).toBeUndefined();
    expect(settings.many(["assistant.model", "assistant.maxSteps", "assistant.model"])).toEqual([
      { key: "assistant.model", value: "openai:gpt-5-mini", updatedBy: "admin", updatedAt: expect.any(Number) },
    ]);
    // Oldest first: billing was created before alpha, whatever the key order.
    expect(settings.withPrefix("agents.", 10).map((s) => s.key)).toEqual(["agents.billing", "agents.alpha"]);
    expect(settings.withPrefix("agents.", 1).map((s) => s.key)).toEqual(["agents.billing"]);
    expect(() => settings.withPrefix("agents", 1)).toThrow(/ends with "."/);
    expect(Object.isFrozen(settings.get("agents.billing"))).toBe(true);

    // A replaced value keeps its creation time (its place in withPrefix).
    await settings.write(new Map([["agents.billing", { name: "billing", tools: [] }]]), "admin");
    const reopened = await dialect.settings();
    expect(reopened.withPrefix("agents.", 10)).toEqual([
      { key: "agents.billing", value: { name: "billing", tools: [] }, updatedBy: "admin", updatedAt: expect.any(Number) },
      { key: "agents.alpha", value: ["x"], updatedBy: "admin", updatedAt: expect.any(Number) },
    ]);
    expect(reopened.get("assistant.model")).toBe("openai:gpt-5-mini");
  });

  it("agent states: a paused state is taken once; list and delete by prefix, wildcards as text", async () => {
    const states = dialect.states();
    await states.put("a", "t1", "run", "r1", { step: 1 }, "paused");
    expect((await states.take("a", "t1", "run", "r2"))?.value).toEqual({ step: 1 });
    expect(await states.take("a", "t1", "run", "r3")).toBeUndefined();
    expect(await states.get("a", "t1", "run")).toMatchObject({ status: "resumed", runId: "r2" });
    await states.put("a", "t1", "run", "r4", "again", "paused");
    expect(await states.get("a", "t1", "run")).toMatchObject({ status: "paused", runId: "r4", value: "again" });

    for (const key of ["cp:1", "cp:2", "cpX3", "c%:4", "w:1", "c_:5"]) await states.put("g", "t", key, "r", key);
    expect((await states.list("g", "t", "cp:")).map((r) => r.key)).toEqual(["cp:1", "cp:2"]);
    expect((await states.list("g", "t", "c%")).map((r) => r.key)).toEqual(["c%:4"]);
    expect((await states.list("g", "t", "c_")).map((r) => r.key)).toEqual(["c_:5"]);
    expect(await states.list("g", "other")).toEqual([]);
    expect(await states.delete("g", "t", "cp:")).toBe(2);
    // Byte order, as the checkpoint saver expects ("%" < "_" < "p" < "w").
    expect((await states.list("g", "t")).map((r) => r.key)).toEqual(["c%:4", "c_:5", "cpX3", "w:1"]);
    expect(await states.delete("g", "t")).toBe(4);
  });

  it("sources: create, count tools, update, read the secret only through credentials, refresh by kind, delete with tools", async () => {
    const sources = dialect.sources();
    const first = await sources.create({
      kind: "openapi",
      name: "Pets",
      location: "https://pets.example/openapi.json",
      authRef: { kind: "bearer" },
      authSecret: "s3cret",
      options: { allow: ["10.0.0.0/8"] },
      document: '{"openapi":"3.0.0"}',
    });
    const second = await sources.create({ kind: "mcp", name: "Files", location: "stdio:files" });
    expect(first).toMatchObject({ kind: "openapi", name: "Pets", auth: { kind: "bearer" }, hasSecret: true, status: "ok", toolCount: 0 });
    expect(JSON.stringify(first)).not.toContain("s3cret");
    await dialect.addTool("pets.list", first.id);
    await dialect.addTool("pets.get", first.id);
    expect((await sources.list()).map((s) => [s.name, s.toolCount])).toEqual([
      ["Pets", 2],
      ["Files", 0],
    ]);
    expect(await sources.credentials(first.id)).toEqual({ authRef: { kind: "bearer" }, secret: "s3cret" });
    expect(await sources.document(first.id)).toBe('{"openapi":"3.0.0"}');
    expect(await sources.document("nope")).toBeUndefined();
    expect(await sources.document(second.id)).toBeNull();

    expect(await sources.startRefresh(second.id, "openapi")).toBeUndefined();
    expect(await sources.get(second.id)).toMatchObject({ status: "ok" });
    expect(await sources.startRefresh(first.id, "openapi")).toMatchObject({ status: "refreshing", toolCount: 2 });
    await sources.update(first.id, { status: "error", statusMessage: "down", options: { allow: [] } });
    expect(await sources.get(first.id)).toMatchObject({ status: "error", statusMessage: "down", options: { allow: [] } });
    // The document lives in a table of its own: a status change keeps it, a new one replaces it.
    expect(await sources.document(first.id)).toBe('{"openapi":"3.0.0"}');
    await sources.update(first.id, { status: "ok", document: '{"openapi":"3.1.0"}' });
    expect(await sources.document(first.id)).toBe('{"openapi":"3.1.0"}');
    await sources.update(second.id, { document: "card" });
    expect(await sources.document(second.id)).toBe("card");
    await sources.update(second.id, { document: null });
    expect(await sources.document(second.id)).toBeNull();
    await sources.update("nope", { status: "error", document: "{}" });
    expect(await sources.document("nope")).toBeUndefined();

    expect(await sources.delete(first.id)).toBe(true);
    expect(await sources.delete(first.id)).toBe(false);
    expect(await sources.get(first.id)).toBeUndefined();
    expect(await sources.document(first.id)).toBeUndefined();
    expect(await dialect.count("source_documents")).toBe(0);
    expect((await sources.list()).map((s) => s.id)).toEqual([second.id]);
  });
});

describe("settings and agent states on PostgreSQL across two instances", () => {
  const other = postgresPool(database);
  beforeEach(async () => {
    await pg.pool.query("truncate settings, agent_states");
  });

  it("10 concurrent inserts of one key on two instances: exactly one is told it inserted", async () => {
    const a = await SettingsStore.open(new PgSettingRows(pg.db));
    const b = await SettingsStore.open(new PgSettingRows(other.db));
    const inserted = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).insert("agents.same", { name: `n${i}` }, "op")),
    );
    expect(inserted.filter(Boolean)).toHaveLength(1);
    const { rows } = await pg.pool.query("select value from settings where key = 'agents.same'");
    expect(rows).toHaveLength(1);
  });

  it("10 concurrent takes of one paused state on two instances: exactly one gets the row", async () => {
    const a = new AgentStates(new PgAgentStateRows(pg.db));
    const b = new AgentStates(new PgAgentStateRows(other.db));
    await a.put("agent", "thread", "pause/1", "r0", { at: 1 }, "paused");
    const taken = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).take("agent", "thread", "pause/1", `r${i + 1}`)));
    const winners = taken.filter((row) => row !== undefined);
    expect(winners).toHaveLength(1);
    expect(await b.get("agent", "thread", "pause/1")).toMatchObject({ status: "resumed", runId: winners[0]!.runId });
  });

  it("a setting written on one instance is read on the other after reload(), whose listeners hear the keys that changed", async () => {
    const a = await SettingsStore.open(new PgSettingRows(pg.db));
    const b = await SettingsStore.open(new PgSettingRows(other.db));
    await b.write(new Map<string, unknown>([["assistant.maxSteps", 3]]), "op");
    await a.write(
      new Map<string, unknown>([
        ["assistant.model", "anthropic:claude-sonnet-4-5"],
        ["assistant.tools", ["calculate"]],
      ]),
      "op",
    );
    await a.write(new Map<string, unknown>([["assistant.maxSteps", null]]), "op");
    expect(b.get("assistant.model")).toBeUndefined();
    expect(b.get("assistant.maxSteps")).toBe(3);
    const heard: string[] = [];
    b.onChange((keys) => heard.push(...keys));
    await b.reload();
    expect(b.get("assistant.model")).toBe("anthropic:claude-sonnet-4-5");
    expect(b.get("assistant.tools")).toEqual(["calculate"]);
    expect(b.get("assistant.maxSteps")).toBeUndefined();
    expect(heard.sort()).toEqual(["assistant.maxSteps", "assistant.model", "assistant.tools"]);
    // Nothing changed since: a reload tells nobody.
    await b.reload();
    expect(heard).toHaveLength(3);
  });
});
