// Tool search through the FTS5 index of drizzle/0009_tools_search.sql: what a user types finds
// what they mean, no text is a syntax error, the triggers keep the index in step with every write,
// and the migration indexes the tools a database already holds.
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { consoleApi, type ConsoleApi } from "@/lib/api";
import { openDatabase, type DatabaseHandle } from "@/lib/db";
import { ftsMatchExpression, toolSearchTerms, tsQueryExpression } from "@/lib/db/tool-search";
import { createNodeServer, listenLocal } from "@/lib/http/node-adapter";
import type { Services } from "@/lib/services";
import { ToolRegistry, type ToolSpecInput } from "@/lib/tools";
import { freshDatabase, migrationsBefore } from "../support/database";
import { tempDir, testServices } from "../support/services";

const open: DatabaseHandle[] = [];
afterEach(() => {
  for (const handle of open.splice(0)) handle.close();
});

function registryOn(handle: DatabaseHandle): ToolRegistry {
  open.push(handle);
  return new ToolRegistry(handle.db);
}

const inputSchema = { type: "object", properties: { q: { type: "string" } } };
const spec = (name: string, extra: Partial<ToolSpecInput> = {}): ToolSpecInput => ({
  name,
  description: `The ${name} tool`,
  inputSchema,
  ...extra,
});

/** A registry holding a handful of tools shaped like imported ones. */
async function catalogue(): Promise<ToolRegistry> {
  const registry = registryOn(freshDatabase());
  await registry.addMany([
    {
      spec: spec("create_comment", {
        title: "github.issues.create_comment",
        description: "Add a comment to an issue",
        policy: { tags: ["github"] },
      }),
    },
    { spec: spec("getResourceHTTPServer", { description: "Read one resource from the server" }) },
    { spec: spec("list_pets", { title: "List pets", description: "Lists the pets in the café", policy: { tags: ["petstore"] } }) },
    { spec: spec("delete_pet", { description: 'Delete a pet; NEAR(the end) "quoted" name:value' }) },
    { spec: spec("comment", { description: "Exactly the word" }) },
  ]);
  return registry;
}

const names = (registry: ToolRegistry, text: string, extra: Parameters<ToolRegistry["list"]>[0] = {}) =>
  registry.list({ text, ...extra }).items.map((tool) => tool.name);

describe("what a user types", () => {
  it("finds a word anywhere in name, title, description or tags, by its start, ignoring case", async () => {
    const registry = await catalogue();
    expect(names(registry, "resource")).toEqual(["getResourceHTTPServer"]);
    expect(names(registry, "SERV")).toEqual(["getResourceHTTPServer"]);
    expect(names(registry, "petst")).toEqual(["list_pets"]);
    expect(names(registry, "pet")).toEqual(["delete_pet", "list_pets"]);
    expect(names(registry, "cafe")).toEqual(["list_pets"]);
    // A word is matched from its start, not in its middle.
    expect(names(registry, "esource")).toEqual([]);
  });

  it("finds the parts of snake_case, camelCase and dotted names, next to each other", async () => {
    const registry = await catalogue();
    expect(names(registry, "create_comm")).toEqual(["create_comment"]);
    expect(names(registry, "issues.create")).toEqual(["create_comment"]);
    expect(names(registry, "github.issues.create_comment")).toEqual(["create_comment"]);
    expect(names(registry, "getres")).toEqual(["getResourceHTTPServer"]);
    expect(names(registry, "server")).toEqual(["getResourceHTTPServer"]);
    // Capitals in a row are split one by one (SQLite has no regular expressions for a trigger to
    // keep an acronym whole), so an acronym inside a name is found only from the name's start.
    expect(names(registry, "http")).toEqual([]);
    // The parts of one word must follow each other.
    expect(names(registry, "comment_create")).toEqual([]);
  });

  it("needs every word to match somewhere", async () => {
    const registry = await catalogue();
    expect(names(registry, "comment issue")).toEqual(["create_comment"]);
    expect(names(registry, "comment pets")).toEqual([]);
  });

  it("lists the tool named exactly by the text first, then the others in name order, across pages", async () => {
    const registry = await catalogue();
    expect(names(registry, "comment")).toEqual(["comment", "create_comment"]);
    const first = registry.list({ text: "pet", limit: 1 });
    expect(first.items.map((t) => t.name)).toEqual(["delete_pet"]);
    await registry.add(spec("pet", { description: "Exactly pet" }));
    const lead = registry.list({ text: "pet", limit: 1 });
    expect(lead.items.map((t) => t.name)).toEqual(["pet"]);
    expect(lead.total).toBe(3);
    const rest = registry.list({ text: "pet", limit: 1, cursor: lead.nextCursor });
    expect(rest.items.map((t) => t.name)).toEqual(["delete_pet"]);
    const last = registry.list({ text: "pet", limit: 1, cursor: rest.nextCursor });
    expect(last.items.map((t) => t.name)).toEqual(["list_pets"]);
    expect(last.nextCursor).toBeUndefined();
    // Other filters apply to the exact name too.
    await registry.setEnabled("pet", false);
    expect(names(registry, "pet", { enabled: true })).toEqual(["delete_pet", "list_pets"]);
  });

  it.each([
    ['"', 5],
    ['"unbalanced', 0],
    ["pet*", 2],
    ["*", 5],
    ["NEAR(the", 1],
    ["NEAR(", 1],
    ["name:value", 1],
    ["title:pets", 0],
    ["-pet", 2],
    ["pet -list", 1],
    ["(pet", 2],
    ["pet)", 2],
    ["pet AND list", 0],
    ["pet OR comment", 0],
    ["^pet", 2],
    ["pet + list", 1],
    ["{name}: pet", 1],
    ["'; drop table tools; --", 0],
    ["\u0000pet", 2],
    ["%", 5],
    ["_", 5],
  ] as const)("answers %j with results or none, never an error", async (text, count) => {
    const registry = await catalogue();
    expect(registry.list({ text }).items).toHaveLength(count);
    expect(registry.count()).toBe(5);
  });

  it("takes a 10,000-character query", async () => {
    const registry = await catalogue();
    expect(registry.list({ text: "x".repeat(10_000) }).items).toEqual([]);
    expect(registry.list({ text: `pet ${'"*('.repeat(3_000)}` }).items.map((t) => t.name)).toEqual(["delete_pet", "list_pets"]);
    expect(registry.list({ text: Array.from({ length: 2_000 }, (_, i) => `w${i}`).join(" ") }).items).toEqual([]);
  });
});

describe("the query each engine is given", () => {
  it("quotes every word's letters and digits, the last part a prefix", () => {
    const terms = toolSearchTerms('Issues.Create "x" NEAR( -y *');
    expect(terms).toEqual([["issues", "create"], ["x"], ["near"], ["y"]]);
    expect(ftsMatchExpression(terms)).toBe('"issues create"* "x"* "near"* "y"*');
    expect(tsQueryExpression(terms)).toBe("(issues <-> create:*) & (x:*) & (near:*) & (y:*)");
    expect(ftsMatchExpression(toolSearchTerms(' "*" -- ( '))).toBeUndefined();
  });
});

describe("the index follows every write at once", () => {
  it("finds added tools, loses removed ones, follows a refresh that renames and a definition update", async () => {
    const handle = freshDatabase();
    const registry = registryOn(handle);
    handle.sqlite
      .prepare("insert into sources (id, kind, name, location, status) values ('s1', 'openapi', 'S', 'https://x.test', 'ok')")
      .run();
    await registry.add(spec("alpha_report", { sourceId: "s1", kind: "openapi" }));
    expect(names(registry, "alpha")).toEqual(["alpha_report"]);

    await registry.replaceSource("s1", [{ spec: spec("beta_report", { sourceId: "s1", kind: "openapi" }) }]);
    expect(names(registry, "alpha")).toEqual([]);
    expect(names(registry, "beta")).toEqual(["beta_report"]);

    await registry.setEnabled("beta_report", false);
    expect(names(registry, "beta")).toEqual(["beta_report"]);
    expect(names(registry, "beta", { enabled: true })).toEqual([]);
    expect(names(registry, "beta", { enabled: false })).toEqual(["beta_report"]);

    // A built-in whose shipped definition changed is updated in place (the update trigger).
    await registry.upsertBuiltins([{ spec: spec("gamma", { description: "Old words" }), handler: () => "ok" }]);
    await registry.upsertBuiltins([{ spec: spec("gamma", { description: "Fresh words" }), handler: () => "ok" }]);
    expect(names(registry, "old")).toEqual([]);
    expect(names(registry, "fresh")).toEqual(["gamma"]);

    await registry.remove("beta_report");
    expect(names(registry, "beta")).toEqual([]);
    await registry.removeSource("s1");
    expect(indexedRows(handle)).toBe(registry.count());
  });

  it("keeps matching the right rows after VACUUM (the index is keyed by tools' rowids)", async () => {
    const handle = freshDatabase();
    const registry = registryOn(handle);
    await registry.addMany(["one_a", "two_b", "three_c", "four_d"].map((name) => ({ spec: spec(name) })));
    await registry.remove("two_b");
    handle.sqlite.exec("vacuum");
    expect(names(registry, "three")).toEqual(["three_c"]);
    expect(names(registry, "four")).toEqual(["four_d"]);
    expect(names(registry, "two")).toEqual([]);
  });
});

function indexedRows(handle: DatabaseHandle): number {
  return (handle.sqlite.prepare("select count(*) as n from tools_search").get() as { n: number }).n;
}

describe("the migration", () => {
  it("indexes the tools of a database made before it", async () => {
    // A migrations folder that stops just before 0009_tools_search.
    const folder = migrationsBefore(path.resolve(__dirname, "../../drizzle"), "0009_tools_search");

    const file = path.join(tempDir(), "console.db");
    const before = openDatabase(file, { migrationsFolder: folder });
    expect(before.sqlite.prepare("select count(*) as n from sqlite_master where name = 'tools_search'").get()).toEqual({ n: 0 });
    await new ToolRegistry(before.db).addMany([
      { spec: spec("create_comment", { title: "github.issues.create_comment" }) },
      { spec: spec("list_pets", { description: "Lists the pets" }) },
    ]);
    before.close();

    const after = openDatabase(file);
    const registry = registryOn(after);
    expect(names(registry, "issues.create")).toEqual(["create_comment"]);
    expect(names(registry, "pets")).toEqual(["list_pets"]);
    expect(indexedRows(after)).toBe(2);
    await registry.remove("list_pets");
    expect(names(registry, "pets")).toEqual([]);
  });
});

describe("GET /api/tools?text=", () => {
  let services: Services;
  let tools: ConsoleApi["tools"];
  beforeAll(async () => {
    services = testServices({ SEED_DEMO: "0" });
    await services.registry.addMany([{ spec: spec("create_comment", { description: "Add a comment" }) }, { spec: spec("list_pets") }]);
    ({ tools } = consoleApi(services));
  });
  afterAll(() => services.close());

  const list = async (text: string) => {
    const response = await tools.list(
      new Request(`http://127.0.0.1:3000/api/tools?text=${encodeURIComponent(text)}`, { headers: { host: "127.0.0.1:3000" } }),
    );
    return { status: response.status, body: (await response.json()) as { items: Array<{ name: string }>; total: number } };
  };

  it.each(['"', "NEAR(", "name:x", "-x", "((", "*", 'a" OR "b'])("answers %j with 200", async (text) => {
    const { status, body } = await list(text);
    expect(status).toBe(200);
    expect(Array.isArray(body.items)).toBe(true);
  });

  it("finds by parts and counts the matches, over a real socket too", async () => {
    expect((await list("create_com")).body).toMatchObject({ items: [{ name: "create_comment" }], total: 1 });
    const server = createNodeServer([{ method: "GET", path: "/api/tools", handler: tools.list }]);
    const url = await listenLocal(server);
    try {
      const response = await fetch(`${url}/api/tools?text=${encodeURIComponent('comm "*(')}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ items: [{ name: "create_comment" }], total: 1 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
