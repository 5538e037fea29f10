// The tool registry's rows over both dialects: the same behaviour tests run on SQLite (ToolRows on
// a temporary file) and on PostgreSQL (PgToolRows on this file's own database). Then, on
// PostgreSQL, two connection pools stand for two console instances: a registry on one writes, a
// registry on the other reloads and sees it, and both starting at once upsert the built-ins
// without an error and with one row per tool.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import { InvalidCursor, type DatabaseHandle } from "@/lib/db";
import { PgToolRows } from "@/lib/db/postgres/tools";
import * as pgSchema from "@/lib/db/schema.pg";
import * as liteSchema from "@/lib/db/schema";
import { ToolNameTaken, ToolRows, type ToolRow, type ToolRowStore } from "@/lib/db/tools";
import { DuplicateTool, ToolRegistry, type ToolSpecInput } from "@/lib/tools";
import { freshDatabase } from "../support/database";
import { postgresDatabase, postgresPool } from "../support/postgres";
import { toolRow } from "../support/tool-rows";

const database = postgresDatabase();
const pg = postgresPool(database);

let sqliteHandle: DatabaseHandle | undefined;
afterAll(() => sqliteHandle?.close());

/** One dialect: a fresh row store, its audit rows, and a way to add a source row. */
interface Dialect {
  fresh(): Promise<ToolRowStore>;
  audit(tool: string): Promise<Array<{ type: string; actor: string; data: unknown }>>;
  addSource(id: string, status?: "ok" | "importing"): Promise<void>;
  sourceStatus(id: string): Promise<string | undefined>;
}

const dialects: Array<[string, Dialect]> = [
  [
    "SQLite",
    {
      fresh: async () => {
        sqliteHandle?.close();
        sqliteHandle = freshDatabase();
        return new ToolRows(sqliteHandle.db);
      },
      audit: async (tool) =>
        sqliteHandle!.db
          .select()
          .from(liteSchema.toolEvents)
          .where(eq(liteSchema.toolEvents.tool, tool))
          .orderBy(asc(liteSchema.toolEvents.id))
          .all(),
      addSource: async (id, status = "ok") => {
        sqliteHandle!.sqlite
          .prepare("insert into sources (id, kind, name, location, status) values (?, 'openapi', ?, 'inline', ?)")
          .run(id, id, status);
      },
      sourceStatus: async (id) =>
        (sqliteHandle!.sqlite.prepare("select status from sources where id = ?").get(id) as { status: string } | undefined)?.status,
    },
  ],
  [
    "PostgreSQL",
    {
      fresh: async () => {
        await pg.pool.query("truncate tools, tool_events, sources cascade");
        return new PgToolRows(pg.db);
      },
      audit: async (tool) =>
        pg.db.select().from(pgSchema.toolEvents).where(eq(pgSchema.toolEvents.tool, tool)).orderBy(asc(pgSchema.toolEvents.id)),
      addSource: async (id, status = "ok") => {
        await pg.db.insert(pgSchema.sources).values({ id, kind: "openapi", name: id, location: "inline", status });
      },
      sourceStatus: async (id) => (await pg.db.select().from(pgSchema.sources).where(eq(pgSchema.sources.id, id)))[0]?.status,
    },
  ],
];

const byName = (rows: ToolRow[]) => [...rows].sort((a, b) => (a.name < b.name ? -1 : 1));

describe.each(dialects)("tool rows on %s", (_name, dialect) => {
  let rows: ToolRowStore;
  beforeEach(async () => {
    rows = await dialect.fresh();
  });

  it("inserts rows all or nothing, reads them back as written, and refuses a stored name", async () => {
    await rows.insertMany([toolRow("a"), toolRow("b", { outputSchema: { type: "string" }, binding: { path: "/b" } })]);
    expect(byName(await rows.all())).toEqual([toolRow("a"), toolRow("b", { outputSchema: { type: "string" }, binding: { path: "/b" } })]);
    await expect(rows.insertMany([toolRow("c"), toolRow("a")])).rejects.toEqual(new ToolNameTaken("a"));
    expect((await rows.all()).map((r) => r.name).sort()).toEqual(["a", "b"]);
    expect((await rows.byNames(["b", "zzz"])).map((r) => r.name)).toEqual(["b"]);
    expect(await rows.byNames([])).toEqual([]);
  });

  it("a large batch lands whole (more rows than one statement takes)", async () => {
    await rows.insertMany(Array.from({ length: 450 }, (_, i) => toolRow(`t_${String(i).padStart(3, "0")}`)));
    expect(await rows.all()).toHaveLength(450);
  });

  it("insertImported writes an importing source's rows, all or nothing, and marks the source ok with the last", async () => {
    await dialect.addSource("src_big", "importing");
    const imported = Array.from({ length: 450 }, (_, i) =>
      toolRow(`imp_${String(i).padStart(3, "0")}`, {
        sourceId: "src_big",
        kind: "openapi",
        confirm: i % 2 === 0,
        tags: [`t${i % 3}`],
        ...(i % 5 === 0 && { outputSchema: { type: "string" }, binding: { path: `/r/${i}`, method: "get" } }),
      }),
    );
    await rows.insertImported("src_big", imported);
    expect(await dialect.sourceStatus("src_big")).toBe("ok");
    expect((await rows.page({ sourceId: "src_big", limit: 1 })).total).toBe(450);
    expect(byName(await rows.all())).toEqual(imported);

    // A name met in the last rows: the rows written before it go too, and the source stays importing.
    await rows.insertMany([toolRow("late_449")]);
    await dialect.addSource("src_late", "importing");
    const late = Array.from({ length: 450 }, (_, i) =>
      toolRow(`late_${String(i).padStart(3, "0")}`, { sourceId: "src_late", kind: "openapi" }),
    );
    await expect(rows.insertImported("src_late", late)).rejects.toEqual(new ToolNameTaken("late_449"));
    expect((await rows.all()).map((r) => r.name).filter((name) => name.startsWith("late_"))).toEqual(["late_449"]);
    expect(await dialect.sourceStatus("src_late")).toBe("importing");
  });

  it("upsertDefinitions inserts new rows and replaces definitions, keeping settings and creation time", async () => {
    await rows.insertMany([toolRow("a")]);
    await rows.updateSettings("a", {
      enabled: false,
      approval: "always",
      timeoutMs: 5_000,
      retries: 2,
      targets: ["mcp"],
      updatedAt: 2_000,
    });
    const stored = await rows.upsertDefinitions([
      toolRow("a", { description: "New words", digest: "digest-a2", createdAt: 3_000, updatedAt: 3_000 }),
      toolRow("b", { createdAt: 3_000, updatedAt: 3_000 }),
    ]);
    const expected = [
      toolRow("a", {
        description: "New words",
        digest: "digest-a2",
        enabled: false,
        approval: "always",
        timeoutMs: 5_000,
        retries: 2,
        targets: ["mcp"],
        createdAt: 1_000,
        updatedAt: 3_000,
      }),
      toolRow("b", { createdAt: 3_000, updatedAt: 3_000 }),
    ];
    expect(byName(stored)).toEqual(expected);
    expect(byName(await rows.all())).toEqual(expected);
    expect(await rows.upsertDefinitions([])).toEqual([]);
  });

  it("updateSettings changes only the settings given, with an audit row of before and after when an actor is named", async () => {
    await rows.insertMany([toolRow("a")]);
    const update = await rows.updateSettings("a", { enabled: false, timeoutMs: 9_000, updatedAt: 2_000 }, "alice");
    expect(update?.before).toEqual(toolRow("a"));
    expect(update?.after).toEqual(toolRow("a", { enabled: false, timeoutMs: 9_000, updatedAt: 2_000 }));
    await rows.updateSettings("a", { retries: 3, updatedAt: 3_000 });
    expect((await rows.byNames(["a"]))[0]).toEqual(toolRow("a", { enabled: false, timeoutMs: 9_000, retries: 3, updatedAt: 3_000 }));
    const settings = { enabled: true, approval: "default", timeoutMs: 30_000, retries: 0, targets: ["mcp", "agui"] };
    expect(await dialect.audit("a")).toMatchObject([
      { type: "settings_changed", actor: "alice", data: { before: settings, after: { ...settings, enabled: false, timeoutMs: 9_000 } } },
    ]);
    expect(await rows.updateSettings("nope", { enabled: false, updatedAt: 4_000 }, "alice")).toBeUndefined();
    expect(await dialect.audit("nope")).toEqual([]);
  });

  it("delete and deleteBySource say what went", async () => {
    await dialect.addSource("s1");
    await rows.insertMany([toolRow("a"), toolRow("b", { sourceId: "s1" }), toolRow("c", { sourceId: "s1" })]);
    expect(await rows.delete("a")).toBe(true);
    expect(await rows.delete("a")).toBe(false);
    expect((await rows.deleteBySource("s1")).sort()).toEqual(["b", "c"]);
    expect(await rows.deleteBySource("s1")).toEqual([]);
    expect(await rows.all()).toEqual([]);
  });

  it("replaceSource swaps a source's tools, keeps settings by name, and changes nothing when a name is taken", async () => {
    await dialect.addSource("s1");
    await rows.insertMany([toolRow("outside"), toolRow("kept", { sourceId: "s1" }), toolRow("gone", { sourceId: "s1" })]);
    await rows.updateSettings("kept", { enabled: false, retries: 4, updatedAt: 2_000 });
    const replaced = await rows.replaceSource("s1", [
      toolRow("kept", { sourceId: "s1", digest: "d2" }),
      toolRow("new", { sourceId: "s1" }),
    ]);
    expect(replaced.removed.sort()).toEqual(["gone", "kept"]);
    const kept = (await rows.byNames(["kept"]))[0]!;
    expect(kept).toMatchObject({ digest: "d2", enabled: false, retries: 4 });
    expect(byName(replaced.rows)).toEqual(byName(await rows.byNames(["kept", "new"])));

    const before = byName(await rows.all());
    await expect(rows.replaceSource("s1", [toolRow("fresh", { sourceId: "s1" }), toolRow("outside", { sourceId: "s1" })])).rejects.toEqual(
      new ToolNameTaken("outside"),
    );
    expect(byName(await rows.all())).toEqual(before);
  });
});

describe.each(dialects)("listing tool rows on %s", (_name, dialect) => {
  let rows: ToolRowStore;
  beforeAll(async () => {
    rows = await dialect.fresh();
    await dialect.addSource("petstore");
    await rows.insertMany([
      toolRow("get_weather", {
        title: "Weather",
        description: "Current weather for a city",
        tags: ["demo", "weather"],
        targets: ["agui", "mcp"],
      }),
      toolRow("create_ticket", { description: "Open a support ticket", confirm: true, effects: "write", tags: ["demo", "support"] }),
      toolRow("delete_pet", {
        description: "Delete a pet",
        kind: "openapi",
        sourceId: "petstore",
        effects: "destructive",
        targets: ["mcp"],
      }),
      toolRow("list_pets", { description: "List the pets", kind: "openapi", sourceId: "petstore", tags: ["pets"], approval: "always" }),
      toolRow("search_docs", { title: "Search documentation", kind: "mcp", targets: ["openai"], enabled: false }),
      toolRow("pet", { description: "Exactly pet" }),
    ]);
  });
  const names = (page: { items: ToolRow[] }) => page.items.map((r) => r.name);

  it("filters by target, tag, source, kind, effects, approval as operators set it, and enabled, with the total", async () => {
    const all = await rows.page({});
    expect(names(all)).toEqual(["create_ticket", "delete_pet", "get_weather", "list_pets", "pet", "search_docs"]);
    expect(all.total).toBe(6);
    expect(names(await rows.page({ target: "agui" }))).toEqual(["create_ticket", "get_weather", "list_pets", "pet"]);
    expect(names(await rows.page({ tag: "demo" }))).toEqual(["create_ticket", "get_weather"]);
    expect(names(await rows.page({ sourceId: "petstore" }))).toEqual(["delete_pet", "list_pets"]);
    expect(names(await rows.page({ kind: "mcp" }))).toEqual(["search_docs"]);
    expect(names(await rows.page({ effects: "destructive" }))).toEqual(["delete_pet"]);
    expect(names(await rows.page({ needsApproval: true }))).toEqual(["create_ticket", "list_pets"]);
    expect((await rows.page({ needsApproval: false })).total).toBe(4);
    expect(names(await rows.page({ enabled: false }))).toEqual(["search_docs"]);
    expect(names(await rows.page({ tag: "demo", target: "mcp", effects: "write" }))).toEqual(["create_ticket"]);
  });

  it("searches words, leads with the exact name on the first page only, and pages with a cursor", async () => {
    const first = await rows.page({ text: "pet", limit: 1 });
    expect(names(first)).toEqual(["pet"]);
    expect(first.total).toBe(3);
    const second = await rows.page({ text: "pet", limit: 1, cursor: first.nextCursor });
    const third = await rows.page({ text: "pet", limit: 1, cursor: second.nextCursor });
    expect([...names(second), ...names(third)]).toEqual(["delete_pet", "list_pets"]);
    expect(third.nextCursor).toBeUndefined();
    expect(names(await rows.page({ text: "weather city" }))).toEqual(["get_weather"]);
    expect(await rows.page({ text: "nothing-here" })).toEqual({ items: [], total: 0 });
    await expect(rows.page({ cursor: "not-a-cursor" })).rejects.toBeInstanceOf(InvalidCursor);
  });
});

const spec = (name: string, extra: Partial<ToolSpecInput> = {}): ToolSpecInput => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: "object" },
  ...extra,
});

describe.each(dialects)("the registry over %s rows", (_name, dialect) => {
  it("a failed write changes neither the rows nor the in-memory copy, and tells no listener", async () => {
    const rows = await dialect.fresh();
    const registry = await ToolRegistry.open(rows);
    await registry.add(spec("a"));
    const heard: string[][] = [];
    registry.onChange((names) => heard.push(names));
    await expect(registry.addMany([{ spec: spec("b") }, { spec: spec("a") }])).rejects.toBeInstanceOf(DuplicateTool);
    expect(registry.get("b")).toBeUndefined();
    expect(heard).toEqual([]);
    expect((await rows.all()).map((r) => r.name)).toEqual(["a"]);
  });
});

describe.each(dialects)("reloading a registry over %s rows", (_name, dialect) => {
  it("a write of this registry made while a reload read the rows keeps what it wrote", async () => {
    const rows = await dialect.fresh();
    let release = () => {};
    let read = () => {};
    const readDone = new Promise<void>((resolve) => (read = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    // Once holding: reads the rows at once, then hands them over only when the gate opens.
    const held: ToolRowStore = Object.assign(Object.create(rows) as ToolRowStore, {
      all: async () => {
        const stale = await rows.all();
        if (!holding) return stale;
        read();
        await gate;
        return stale;
      },
    });
    const registry = await ToolRegistry.open(held);
    await registry.add(spec("one"));
    holding = true;
    const reloading = registry.reload();
    await readDone;
    await registry.update("one", { retries: 5 });
    release();
    holding = false;
    expect(await reloading).toEqual([]);
    expect(registry.get("one")?.policy.retries).toBe(5);
    // Once no reload runs, the next one takes what is stored.
    expect(await registry.reload()).toEqual([]);
  });
});

describe("the registry across two instances on PostgreSQL", () => {
  const other = postgresPool(database);
  beforeEach(async () => {
    await pg.pool.query("truncate tools, tool_events, sources cascade");
  });

  it("what one instance writes, the other sees after reload, and its listeners hear the names that changed", async () => {
    const a = await ToolRegistry.open(new PgToolRows(pg.db));
    const b = await ToolRegistry.open(new PgToolRows(other.db));
    const heard: string[][] = [];
    b.onChange((names) => heard.push([...names].sort()));

    await a.addMany([{ spec: spec("one") }, { spec: spec("two") }]);
    expect(b.get("one")).toBeUndefined();
    expect((await b.reload()).sort()).toEqual(["one", "two"]);
    expect(b.get("one")?.description).toBe("The one tool");

    await a.changeSettings("one", { enabled: false, timeoutMs: 1_234 }, "alice");
    await a.remove("two");
    await a.add(spec("three"));
    expect(await b.reload(["one", "two", "three"])).toEqual(["one", "two", "three"]);
    expect(b.get("one")).toMatchObject({ enabled: false, policy: { timeoutMs: 1_234 } });
    expect(b.get("two")).toBeUndefined();
    expect(b.get("three")).toBeDefined();

    // Nothing changed since: nothing is heard.
    expect(await b.reload()).toEqual([]);
    expect(heard).toEqual([
      ["one", "two"],
      ["one", "three", "two"],
    ]);

    // An instance changing a setting it has a stale copy of keeps what the other changed meanwhile.
    await b.update("one", { retries: 2 });
    await a.update("one", { approval: "always" });
    await b.reload(["one"]);
    expect(b.get("one")).toMatchObject({ enabled: false, approval: "always", policy: { timeoutMs: 1_234, retries: 2 } });
  });

  it("two instances starting at once both upsert the built-ins: no error, one row per tool", async () => {
    const builtins = Array.from({ length: 30 }, (_, i) => ({ spec: spec(`builtin_${i}`), handler: () => i }));
    for (let round = 0; round < 5; round++) {
      await pg.pool.query("truncate tools, tool_events, sources cascade");
      const [a, b] = await Promise.all([ToolRegistry.open(new PgToolRows(pg.db)), ToolRegistry.open(new PgToolRows(other.db))]);
      await Promise.all([a.upsertBuiltins(builtins), b.upsertBuiltins(builtins)]);
      const { rows } = await pg.pool.query<{ name: string; n: number }>("select name, count(*)::int as n from tools group by name");
      expect(rows).toHaveLength(30);
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(a.count()).toBe(30);
      expect(b.count()).toBe(30);
    }
  });

  it("two instances refreshing one source at once both succeed, one after the other", async () => {
    await pg.db.insert(pgSchema.sources).values({ id: "s1", kind: "openapi", name: "s1", location: "inline" });
    const a = new PgToolRows(pg.db);
    const b = new PgToolRows(other.db);
    const tools = (by: string) => ["x", "y", "z"].map((name) => toolRow(name, { sourceId: "s1", description: `from ${by}` }));
    for (let round = 0; round < 5; round++) {
      const done = await Promise.allSettled([a.replaceSource("s1", tools("a")), b.replaceSource("s1", tools("b"))]);
      expect(done.map((d) => d.status)).toEqual(["fulfilled", "fulfilled"]);
      const stored = await a.all();
      expect(stored.map((r) => r.name).sort()).toEqual(["x", "y", "z"]);
      expect(new Set(stored.map((r) => r.description)).size).toBe(1);
    }
  });

  it("two instances adding the same name at once: one wins, the other hears DuplicateTool", async () => {
    const a = await ToolRegistry.open(new PgToolRows(pg.db));
    const b = await ToolRegistry.open(new PgToolRows(other.db));
    const outcomes = await Promise.allSettled([
      a.add(spec("same", { description: "from a" })),
      b.add(spec("same", { description: "from b" })),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(DuplicateTool);
    const { rows } = await pg.pool.query("select name from tools");
    expect(rows).toEqual([{ name: "same" }]);
  });
});
