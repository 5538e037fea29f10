import { afterEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, InvalidCursor, openDatabase } from "@/lib/db";
import { DuplicateTool, ToolDefinitionError, ToolRegistry, ToolUsageError, type ToolSpecInput } from "@/lib/tools";
import { SourceStore } from "@/lib/db/sources";
import { countRows, freshDatabase } from "./support/database";

const open: DatabaseHandle[] = [];
afterEach(() => {
  for (const handle of open.splice(0)) handle.close();
});

function setup(): { handle: DatabaseHandle; registry: ToolRegistry } {
  const handle = freshDatabase();
  open.push(handle);
  return { handle, registry: new ToolRegistry(handle.db) };
}

function reopen(handle: DatabaseHandle): { handle: DatabaseHandle; registry: ToolRegistry } {
  const again = openDatabase(handle.path);
  open.push(again);
  return { handle: again, registry: new ToolRegistry(again.db) };
}

const objectSchema = { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false };

function spec(name: string, extra: Partial<ToolSpecInput> = {}): ToolSpecInput {
  return { name, description: `The ${name} tool`, inputSchema: objectSchema, ...extra };
}

async function definitionError(fn: () => unknown): Promise<ToolDefinitionError> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolDefinitionError);
    return error as ToolDefinitionError;
  }
  throw new Error("expected a ToolDefinitionError");
}

describe("tool names", () => {
  it.each(["a", "_", "get_weather", "Get-Weather_2", "A" + "b".repeat(63)])("accepts %j", async (name) => {
    const { registry } = setup();
    expect((await registry.add(spec(name))).name).toBe(name);
    expect(registry.get(name)?.name).toBe(name);
  });

  it.each(["", "9lives", "-dash", "has space", "dot.ted", "slash/ed", "café", "a" + "b".repeat(64), "__proto__!"])(
    "refuses %j naming the name",
    async (name) => {
      const { handle, registry } = setup();
      const error = await definitionError(() => registry.add(spec(name)));
      expect(error.path).toBe("name");
      expect(error.kind).toBe("invalid_tool_definition");
      expect(countRows(handle, "tools")).toBe(0);
    },
  );

  it("takes 64 characters and refuses 65", async () => {
    const { registry } = setup();
    expect("x".repeat(64)).toHaveLength(64);
    expect((await registry.add(spec("x".repeat(64)))).name).toHaveLength(64);
    expect((await definitionError(() => registry.add(spec("y".repeat(65))))).path).toBe("name");
  });
});

describe("tool schemas", () => {
  it.each([
    [{ type: "string" }, "inputSchema/type"],
    [{ properties: { q: { type: "string" } } }, "inputSchema/type"],
    [{ type: "array", items: {} }, "inputSchema/type"],
  ])("the input schema's root must be an object: %j", async (inputSchema, path) => {
    const { registry } = setup();
    const error = await definitionError(() => registry.add(spec("t", { inputSchema })));
    expect(error.path).toBe(path);
    expect(error.message).toContain('"t"');
  });

  it("an input schema that is not a JSON object is refused at inputSchema", async () => {
    const { registry } = setup();
    expect((await definitionError(() => registry.add(spec("t", { inputSchema: [] as unknown as Record<string, unknown> })))).path).toBe(
      "inputSchema",
    );
  });

  it("a bad schema names its path", async () => {
    const { registry } = setup();
    const error = await definitionError(() =>
      registry.add(spec("t", { inputSchema: { type: "object", properties: { x: { type: "strin" } } } })),
    );
    expect(error.path).toBe("inputSchema/properties/x/type");
    expect(error.message).toContain("inputSchema/properties/x/type");
    const deeper = await definitionError(() =>
      registry.add(spec("t", { inputSchema: { type: "object", properties: { list: { type: "array", items: { minLength: "three" } } } } })),
    );
    expect(deeper.path).toBe("inputSchema/properties/list/items/minLength");
  });

  it("a bad output schema names its path", async () => {
    const { registry } = setup();
    const error = await definitionError(() => registry.add(spec("t", { outputSchema: { type: "object", required: "id" } })));
    expect(error.path).toBe("outputSchema/required");
  });

  it("an output schema need not be an object", async () => {
    const { registry } = setup();
    expect((await registry.add(spec("t", { outputSchema: { type: "string" } }))).outputSchema).toEqual({ type: "string" });
  });

  it("refuses an unresolvable $ref", async () => {
    const { handle, registry } = setup();
    const error = await definitionError(() =>
      registry.add(spec("t", { inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/missing" } } } })),
    );
    expect(error.path).toBe("inputSchema");
    expect(error.message).toMatch(/cannot be compiled/);
    expect(countRows(handle, "tools")).toBe(0);
  });

  it("accepts a resolvable $ref", async () => {
    const { registry } = setup();
    const tool = await registry.add(
      spec("t", { inputSchema: { type: "object", $defs: { s: { type: "string" } }, properties: { x: { $ref: "#/$defs/s" } } } }),
    );
    expect(tool.name).toBe("t");
  });

  it("refuses unknown policy options and out-of-range values, naming them", async () => {
    const { registry } = setup();
    expect((await definitionError(() => registry.add(spec("t", { policy: { retries: 11 } })))).path).toBe("policy/retries");
    expect((await definitionError(() => registry.add(spec("t", { policy: { targets: ["smtp" as "mcp"] } })))).path).toBe(
      "policy/targets/0",
    );
    expect((await definitionError(() => registry.add(spec("t", { policy: { confrim: true } as never })))).path).toBe("policy");
  });
});

describe("adding tools", () => {
  it("fills the policy defaults and writes the row", async () => {
    const { handle, registry } = setup();
    const tool = await registry.add(spec("lookup"));
    expect(tool).toMatchObject({
      name: "lookup",
      title: "lookup",
      kind: "builtin",
      enabled: true,
      approval: "default",
      sourceId: null,
      policy: { confirm: false, effects: "read", idempotent: true, openWorld: false, timeoutMs: 30_000, retries: 0, tags: [] },
    });
    expect(tool.policy.targets).toEqual(["agui", "mcp", "a2a", "openai", "anthropic", "gemini", "langchain"]);
    expect((await registry.add(spec("wipe", { policy: { effects: "destructive" } }))).policy.idempotent).toBe(false);
    expect(countRows(handle, "tools")).toBe(2);
  });

  it("refuses a duplicate name with DuplicateTool and keeps the first", async () => {
    const { handle, registry } = setup();
    await registry.add(spec("lookup"));
    await expect(registry.add(spec("lookup", { description: "another" }))).rejects.toThrow(DuplicateTool);
    expect(registry.get("lookup")?.description).toBe("The lookup tool");
    expect(countRows(handle, "tools")).toBe(1);
  });

  it("sees a duplicate of a tool another registry added to the same file", async () => {
    const { handle, registry } = setup();
    await registry.add(spec("lookup"));
    const other = new ToolRegistry(handle.db);
    await expect(other.add(spec("lookup"))).rejects.toThrow(DuplicateTool);
  });

  describe("addMany is all or nothing", () => {
    it("one bad schema writes nothing", async () => {
      const { handle, registry } = setup();
      const error = await definitionError(() =>
        registry.addMany([
          { spec: spec("a") },
          { spec: spec("b") },
          { spec: spec("c", { inputSchema: { type: "object", properties: { n: { type: 5 } } } }) },
        ]),
      );
      expect(error.path).toBe("inputSchema/properties/n/type");
      expect(countRows(handle, "tools")).toBe(0);
      expect(registry.count()).toBe(0);
      expect(registry.get("a")).toBeUndefined();
    });

    it("a duplicate inside the batch writes nothing", async () => {
      const { handle, registry } = setup();
      await expect(registry.addMany([{ spec: spec("a") }, { spec: spec("b") }, { spec: spec("a") }])).rejects.toThrow(DuplicateTool);
      expect(countRows(handle, "tools")).toBe(0);
    });

    it("a duplicate of a registered tool writes nothing", async () => {
      const { handle, registry } = setup();
      await registry.add(spec("b"));
      const handler = () => "new";
      await expect(
        registry.addMany([
          { spec: spec("a"), handler },
          { spec: spec("b"), handler },
        ]),
      ).rejects.toThrow(DuplicateTool);
      expect(countRows(handle, "tools")).toBe(1);
      expect(registry.get("a")).toBeUndefined();
    });

    it("a row SQLite refuses (unknown source) writes nothing", async () => {
      const { handle, registry } = setup();
      await expect(registry.addMany([{ spec: spec("a") }, { spec: spec("b", { sourceId: "no-such-source" }) }])).rejects.toThrow();
      expect(countRows(handle, "tools")).toBe(0);
      expect(registry.get("a")).toBeUndefined();
      expect(registry.count()).toBe(0);
    });

    it("a large batch lands whole", async () => {
      const { handle, registry } = setup();
      const added = await registry.addMany(Array.from({ length: 450 }, (_, i) => ({ spec: spec(`tool_${String(i).padStart(3, "0")}`) })));
      expect(added).toHaveLength(450);
      expect(countRows(handle, "tools")).toBe(450);
    });
  });

  it("tells listeners which tools changed", async () => {
    const { registry } = setup();
    const seen: string[][] = [];
    const off = registry.onChange((names) => seen.push(names));
    await registry.addMany([{ spec: spec("a") }, { spec: spec("b") }]);
    await registry.setEnabled("a", false);
    await registry.remove("b");
    await registry.remove("b");
    off();
    await registry.add(spec("c"));
    expect(seen).toEqual([["a", "b"], ["a"], ["b"]]);
  });
});

function insertSource(handle: DatabaseHandle, id: string): void {
  handle.sqlite
    .prepare("insert into sources (id, kind, name, location) values (?, 'openapi', ?, 'https://example.test/openapi.json')")
    .run(id, id);
}

describe("listing", async () => {
  async function catalogue() {
    const ctx = setup();
    insertSource(ctx.handle, "petstore");
    await ctx.registry.addMany([
      {
        spec: spec("get_weather", {
          title: "Weather",
          description: "Current weather for a city",
          policy: { tags: ["demo", "weather"], targets: ["agui", "mcp"] },
        }),
      },
      {
        spec: spec("create_ticket", {
          description: "Open a support ticket",
          policy: { confirm: true, effects: "write", tags: ["demo", "support"] },
        }),
      },
      {
        spec: spec("delete_pet", {
          description: "Delete a pet",
          kind: "openapi",
          sourceId: "petstore",
          policy: { effects: "destructive", targets: ["mcp"] },
        }),
      },
      { spec: spec("list_pets", { description: "List 100% of pets", kind: "openapi", sourceId: "petstore", policy: { tags: ["pets"] } }) },
      {
        spec: spec("search_docs", {
          title: "Search documentation",
          description: "Full-text search",
          kind: "mcp",
          policy: { targets: ["openai", "anthropic"] },
        }),
      },
    ]);
    return ctx;
  }
  const names = (page: { items: Array<{ name: string }> }) => page.items.map((t) => t.name);

  it("lists every tool in name order with a total", async () => {
    const { registry } = await catalogue();
    const page = registry.list();
    expect(names(page)).toEqual(["create_ticket", "delete_pet", "get_weather", "list_pets", "search_docs"]);
    expect(page.total).toBe(5);
    expect(page.nextCursor).toBeUndefined();
  });

  it("filters by target, tag, source, kind and effects", async () => {
    const { registry } = await catalogue();
    expect(names(registry.list({ target: "mcp" }))).toEqual(["create_ticket", "delete_pet", "get_weather", "list_pets"]);
    expect(names(registry.list({ target: "openai" }))).toEqual(["create_ticket", "list_pets", "search_docs"]);
    expect(names(registry.list({ tag: "demo" }))).toEqual(["create_ticket", "get_weather"]);
    expect(names(registry.list({ tag: "dem" }))).toEqual([]);
    expect(names(registry.list({ sourceId: "petstore" }))).toEqual(["delete_pet", "list_pets"]);
    expect(names(registry.list({ kind: "mcp" }))).toEqual(["search_docs"]);
    expect(names(registry.list({ kind: "builtin" }))).toEqual(["create_ticket", "get_weather"]);
    expect(names(registry.list({ effects: "destructive" }))).toEqual(["delete_pet"]);
    expect(names(registry.list({ effects: "write" }))).toEqual(["create_ticket"]);
    expect(names(registry.list({ kind: "openapi", target: "mcp", effects: "read" }))).toEqual(["list_pets"]);
    expect(registry.list({ kind: "openapi" }).total).toBe(2);
  });

  it("filters by text over name, title, description and tags, every word, case-insensitive", async () => {
    const { registry } = await catalogue();
    expect(names(registry.list({ text: "WEATHER" }))).toEqual(["get_weather"]);
    expect(names(registry.list({ text: "documentation" }))).toEqual(["search_docs"]);
    expect(names(registry.list({ text: "support ticket" }))).toEqual(["create_ticket"]);
    expect(names(registry.list({ text: "support weather" }))).toEqual([]);
    expect(names(registry.list({ text: "pets" }))).toEqual(["list_pets"]);
    expect(names(registry.list({ text: "pet" }))).toEqual(["delete_pet", "list_pets"]);
    expect(names(registry.list({ text: "100%" }))).toEqual(["list_pets"]);
    // A word with no letter or digit searches nothing: alone, it is the plain list.
    expect(names(registry.list({ text: "%" }))).toHaveLength(5);
    expect(names(registry.list({ text: "_" }))).toEqual(["create_ticket", "delete_pet", "get_weather", "list_pets", "search_docs"]);
    expect(names(registry.list({ text: "   " }))).toHaveLength(5);
  });

  it("filters by needsApproval as operators set it, and by enabled", async () => {
    const { registry } = await catalogue();
    expect(names(registry.list({ needsApproval: true }))).toEqual(["create_ticket"]);
    await registry.update("create_ticket", { approval: "never" });
    await registry.update("delete_pet", { approval: "always" });
    await registry.update("list_pets", { approval: "once_per_thread" });
    expect(names(registry.list({ needsApproval: true }))).toEqual(["delete_pet", "list_pets"]);
    expect(names(registry.list({ needsApproval: false }))).toEqual(["create_ticket", "get_weather", "search_docs"]);
    await registry.setEnabled("get_weather", false);
    expect(names(registry.list({ enabled: false }))).toEqual(["get_weather"]);
    expect(names(registry.list({ enabled: true }))).toEqual(["create_ticket", "delete_pet", "list_pets", "search_docs"]);
    expect(registry.list().total).toBe(5);
  });

  it("pages through 250 tools with a cursor, each once, in order", async () => {
    const { registry } = setup();
    const all = Array.from({ length: 250 }, (_, i) => `tool_${String(i).padStart(3, "0")}`);
    await registry.addMany([...all].reverse().map((name, i) => ({ spec: spec(name, { policy: { tags: [i % 2 ? "odd" : "even"] } }) })));
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = registry.list({ limit: 100, cursor });
      expect(page.total).toBe(250);
      seen.push(...names(page));
      sizes.push(page.items.length);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(sizes).toEqual([100, 100, 50]);
    expect(seen).toEqual(all);

    const filtered: string[] = [];
    cursor = undefined;
    do {
      const page = registry.list({ tag: "even", limit: 40, cursor });
      expect(page.total).toBe(125);
      filtered.push(...names(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(filtered).toHaveLength(125);
    expect(new Set(filtered).size).toBe(125);
  });

  it("a page exactly filling the limit has no next cursor", async () => {
    const { registry } = await catalogue();
    expect(registry.list({ limit: 5 }).nextCursor).toBeUndefined();
    expect(registry.list({ limit: 4 }).nextCursor).toBeDefined();
  });

  it("clamps the page size and refuses a forged cursor", async () => {
    const { registry } = await catalogue();
    expect(registry.list({ limit: 0 }).items).toHaveLength(1);
    expect(registry.list({ limit: 1_000_000 }).items).toHaveLength(5);
    expect(() => registry.list({ cursor: "not-a-cursor" })).toThrow(InvalidCursor);
    expect(() => registry.list({ cursor: Buffer.from(JSON.stringify([5])).toString("base64url") })).toThrow(InvalidCursor);
  });

  it("forTarget lists the enabled tools exported to a target", async () => {
    const { registry } = await catalogue();
    expect(registry.forTarget("mcp").map((t) => t.name)).toEqual(["create_ticket", "delete_pet", "get_weather", "list_pets"]);
    await registry.setEnabled("delete_pet", false);
    expect(registry.forTarget("mcp").map((t) => t.name)).toEqual(["create_ticket", "get_weather", "list_pets"]);
    expect(registry.forTarget("anthropic").map((t) => t.name)).toEqual(["create_ticket", "list_pets", "search_docs"]);
    await registry.update("search_docs", { targets: ["gemini"] });
    expect(registry.forTarget("anthropic").map((t) => t.name)).toEqual(["create_ticket", "list_pets"]);
    expect(registry.forTarget("gemini").map((t) => t.name)).toEqual(["create_ticket", "list_pets", "search_docs"]);
  });
});

describe("changing tools", () => {
  it("an operator's change and its audit row commit together; the in-memory copy changes only after the commit", async () => {
    const { handle, registry } = setup();
    await registry.add(spec("a"));
    const changed = await registry.changeSettings("a", { enabled: false, approval: "always" }, "alice");
    expect(changed).toMatchObject({ enabled: false, approval: "always" });
    expect(handle.sqlite.prepare("select type, actor, data from tool_events where tool = 'a'").all()).toEqual([
      { type: "settings_changed", actor: "alice", data: expect.stringContaining('"after":{"enabled":false,"approval":"always"') },
    ]);

    // The audit insert fails: the whole change is undone, in SQLite and in memory.
    handle.sqlite.exec("create trigger refuse_audit before insert on tool_events begin select raise(abort, 'audit refused'); end");
    await expect(registry.changeSettings("a", { enabled: true }, "bob")).rejects.toThrow(/audit refused/);
    expect(registry.get("a")).toMatchObject({ enabled: false, approval: "always" });
    expect(handle.sqlite.prepare("select enabled from tools where name = 'a'").get()).toEqual({ enabled: 0 });
    expect(reopen(handle).registry.get("a")).toMatchObject({ enabled: false });
  });

  it("remove deletes the row and the handler, and says whether it existed", async () => {
    const { handle, registry } = setup();
    await registry.add(spec("a"), () => "a");
    await registry.add(spec("b"));
    expect(await registry.remove("a")).toBe(true);
    expect(await registry.remove("a")).toBe(false);
    expect(registry.get("a")).toBeUndefined();
    expect(countRows(handle, "tools", "name = ?", "a")).toBe(0);
    expect(countRows(handle, "tools")).toBe(1);
    await registry.add(spec("a"));
    expect(registry.handlerFor(registry.get("a")!)).toBeUndefined();
  });

  it("removeSource deletes the tools of one source", async () => {
    const { handle, registry } = setup();
    insertSource(handle, "s1");
    insertSource(handle, "s2");
    await registry.addMany([
      { spec: spec("a", { sourceId: "s1", kind: "openapi" }) },
      { spec: spec("b", { sourceId: "s1", kind: "openapi" }) },
      { spec: spec("c", { sourceId: "s2", kind: "openapi" }) },
    ]);
    expect(await registry.removeSource("s1")).toBe(2);
    expect(registry.all().map((t) => t.name)).toEqual(["c"]);
    expect(countRows(handle, "tools")).toBe(1);
  });

  it("deleting a source cascades to its tools", async () => {
    const { handle, registry } = setup();
    insertSource(handle, "s1");
    await registry.add(spec("a", { sourceId: "s1", kind: "openapi" }));
    handle.sqlite.prepare("delete from sources where id = 's1'").run();
    expect(countRows(handle, "tools")).toBe(0);
  });

  it("enable and disable are stored", async () => {
    const { handle, registry } = setup();
    await registry.add(spec("a"));
    expect((await registry.setEnabled("a", false)).enabled).toBe(false);
    expect(countRows(handle, "tools", "name = 'a' and enabled = 0")).toBe(1);
    expect((await registry.setEnabled("a", true)).enabled).toBe(true);
    expect(countRows(handle, "tools", "name = 'a' and enabled = 1")).toBe(1);
  });

  it("update changes what operators control and nothing else", async () => {
    const { handle, registry } = setup();
    const before = await registry.add(spec("a", { policy: { tags: ["x"], effects: "write" } }));
    const after = await registry.update("a", { approval: "always", timeoutMs: 1234, retries: 3, targets: ["mcp", "mcp", "a2a"] });
    expect(after.approval).toBe("always");
    expect(after.policy).toEqual({ ...before.policy, timeoutMs: 1234, retries: 3, targets: ["mcp", "a2a"] });
    expect(after.description).toBe(before.description);
    expect(after.digest).toBe(before.digest);
    const row = handle.sqlite.prepare("select approval, timeout_ms, retries, targets from tools where name = 'a'").get();
    expect(row).toEqual({ approval: "always", timeout_ms: 1234, retries: 3, targets: '["mcp","a2a"]' });
  });

  it("update and setEnabled of an unknown tool throw ToolUsageError", async () => {
    const { registry } = setup();
    await expect(registry.update("nope", { retries: 1 })).rejects.toThrow(ToolUsageError);
    await expect(registry.setEnabled("nope", false)).rejects.toThrow(ToolUsageError);
    expect(() => registry.bindHandler("nope", () => 1)).toThrow(ToolUsageError);
  });
});

describe("persistence", () => {
  it("a new registry on the reopened file sees the same tools and settings", async () => {
    const { handle, registry } = setup();
    insertSource(handle, "petstore");
    await registry.addMany([
      {
        spec: spec("a", {
          title: "Alpha",
          outputSchema: { type: "object" },
          policy: { confirm: true, effects: "destructive", tags: ["t"], openWorld: true },
        }),
      },
      { spec: spec("b", { kind: "openapi", sourceId: "petstore", binding: { method: "GET", path: "/pets" } }) },
    ]);
    await registry.update("a", { approval: "never", retries: 2, timeoutMs: 999, targets: ["mcp"] });
    await registry.setEnabled("b", false);
    const expected = registry.all();
    handle.close();
    open.splice(open.indexOf(handle), 1);

    const { registry: again } = reopen(handle);
    expect(again.all()).toEqual(expected);
    expect(again.list({ enabled: false }).items.map((t) => t.name)).toEqual(["b"]);
    expect(again.forTarget("mcp").map((t) => t.name)).toEqual(["a"]);
  });

  it("handlers live in memory: an imported tool's handler is rebuilt by its kind's binder", async () => {
    const { handle, registry } = setup();
    await registry.add(spec("op", { kind: "openapi", binding: { path: "/x" } }), () => "original");
    const { registry: again } = reopen(handle);
    const tool = again.get("op")!;
    expect(again.handlerFor(tool)).toBeUndefined();
    const bound: unknown[] = [];
    again.registerBinder("openapi", (t) => {
      bound.push(t.binding);
      return () => "rebuilt";
    });
    const handler = again.handlerFor(tool)!;
    expect(handler({}, {} as never)).toBe("rebuilt");
    again.handlerFor(tool);
    expect(bound).toEqual([{ path: "/x" }]);
  });

  it("upsertBuiltins inserts, then updates a changed definition and keeps what operators set", async () => {
    const { handle, registry } = setup();
    const v1 = {
      spec: { ...spec("builtin_tool", { policy: { effects: "write", tags: ["v1"] } }), kind: "builtin" as const },
      handler: () => "v1",
    };
    await registry.upsertBuiltins([v1]);
    const created = registry.get("builtin_tool")!;
    await registry.update("builtin_tool", { enabled: false, approval: "always", timeoutMs: 4321, retries: 4, targets: ["a2a"] });
    handle.close();
    open.splice(open.indexOf(handle), 1);

    const { handle: h2, registry: again } = reopen(handle);
    const v2 = {
      spec: { ...v1.spec, description: "Version two", policy: { effects: "write" as const, tags: ["v2"], timeoutMs: 10, retries: 0 } },
      handler: () => "v2",
    };
    await again.upsertBuiltins([v2]);
    const check = (tool = again.get("builtin_tool")!) => {
      expect(tool.description).toBe("Version two");
      expect(tool.policy.tags).toEqual(["v2"]);
      expect(tool).toMatchObject({ enabled: false, approval: "always", policy: { timeoutMs: 4321, retries: 4, targets: ["a2a"] } });
      expect(tool.createdAt).toBe(created.createdAt);
      expect(tool.digest).not.toBe(created.digest);
    };
    check();
    expect(again.handlerFor(again.get("builtin_tool")!)?.({}, {} as never)).toBe("v2");
    check(new ToolRegistry(h2.db).get("builtin_tool")!);
    expect(countRows(h2, "tools")).toBe(1);
  });

  it("upsertBuiltins of an unchanged definition writes nothing", async () => {
    const { handle, registry } = setup();
    const v1 = {
      spec: { ...spec("builtin_tool", { policy: { confirm: true, tags: ["v1"] } }), kind: "builtin" as const },
      handler: () => 1,
    };
    await registry.upsertBuiltins([v1]);
    handle.sqlite.prepare("update tools set updated_at = 1 where name = 'builtin_tool'").run();
    const { handle: h2, registry: again } = reopen(handle);
    await again.upsertBuiltins([v1]);
    expect(countRows(h2, "tools", "updated_at = 1")).toBe(1);
  });

  it("upsertBuiltins applies a new built-in policy that the definition digest does not cover", async () => {
    const { handle, registry } = setup();
    const v1 = {
      spec: { ...spec("builtin_tool", { title: "One", policy: { tags: ["v1"] } }), kind: "builtin" as const },
      handler: () => 1,
    };
    await registry.upsertBuiltins([v1]);
    const { registry: again } = reopen(handle);
    await again.upsertBuiltins([{ ...v1, spec: { ...v1.spec, title: "Two", policy: { confirm: true, tags: ["v2"] } } }]);
    for (const r of [again, reopen(handle).registry]) {
      expect(r.get("builtin_tool")).toMatchObject({ title: "Two", policy: { confirm: true, tags: ["v2"] } });
    }
  });
});

describe("replacing a source's tools (a refresh)", () => {
  async function withSource() {
    const { handle, registry } = setup();
    const source = await new SourceStore(handle.db).create({
      kind: "openapi",
      name: "api",
      location: "inline",
      authRef: null,
      authSecret: null,
      options: {},
      document: null,
    });
    return { registry, sourceId: source.id };
  }

  it("keeps what operators set on the tools that remain, and drops the others", async () => {
    const { registry, sourceId } = await withSource();
    await registry.addMany([{ spec: spec("kept", { sourceId }) }, { spec: spec("gone", { sourceId }) }]);
    await registry.update("kept", { enabled: false, approval: "always" });
    const tools = await registry.replaceSource(sourceId, [{ spec: spec("kept", { sourceId }) }, { spec: spec("new", { sourceId }) }]);
    expect(tools.map((t) => t.name).sort()).toEqual(["kept", "new"]);
    expect(registry.get("kept")).toMatchObject({ enabled: false, approval: "always" });
    expect(registry.get("gone")).toBeUndefined();
  });

  it("puts the old tools back, settings and all, when the new ones cannot be added", async () => {
    const { registry, sourceId } = await withSource();
    await registry.add(spec("outside"));
    await registry.add(spec("kept", { sourceId }));
    await registry.update("kept", { timeoutMs: 1234 });
    await expect(
      registry.replaceSource(sourceId, [{ spec: spec("kept", { sourceId }) }, { spec: spec("outside", { sourceId }) }]),
    ).rejects.toThrow(DuplicateTool);
    expect(registry.get("kept")?.policy.timeoutMs).toBe(1234);
    expect(registry.get("outside")?.sourceId).toBeFalsy();
  });
});

describe("definitions from outside", () => {
  it("refuses a hostile value where a bounded string is expected, instead of throwing out of the schema check", async () => {
    const { registry } = setup();
    const hostile = JSON.parse('{"name":"x","description":{"length":{"toString":1}},"inputSchema":{"type":"object"}}') as ToolSpecInput;
    await definitionError(() => registry.add(hostile));
    expect(registry.count()).toBe(0);
  });
});
