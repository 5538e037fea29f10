import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { statusOf } from "@/lib/errors";
import { importOpenApi, previewOpenApi } from "@/lib/integrations/openapi";
import { createServices, type SqliteServices } from "@/lib/services";
import { SourceStore } from "@/lib/sources";
import { tempDir } from "../support/services";
import { startRecordingServer, type RecordingServer } from "./recording-server";

let server: RecordingServer;
let services: SqliteServices;
let sources: SourceStore;

beforeAll(async () => {
  server = await startRecordingServer();
  const config = loadConfig({ LOG_LEVEL: "silent", CONSOLE_DB: path.join(tempDir(), "console.db"), OUTBOUND_ALLOW: "127.0.0.1/32" });
  services = createServices(config);
  sources = new SourceStore(services.database.db);
});
afterAll(async () => {
  services.close();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.respond = () => ({ json: { ok: true } });
});

/** `{"a":{"a":…1}}` with `depth` objects, built without recursion. */
function deepObject(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

/** A small valid OpenAPI 3.1 document with one GET operation, plus `extra` at its root. */
function document(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: { title: "Bounds", version: "1" },
    servers: [{ url: server.url }],
    paths: {
      "/items/{id}": {
        get: {
          operationId: "getItem",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
    ...extra,
  };
}

async function snapshot() {
  return { tools: services.registry.count(), sources: (await sources.list()).length };
}

describe("documents nested too deep are refused before anything recursive runs", () => {
  it("a JSON document with an extension nested 5,000 deep is a 422 too_deep, not a validator crash", async () => {
    const before = await snapshot();
    const text = JSON.stringify(document({ "x-foo": "DEEP" })).replace('"DEEP"', `${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`);
    const error = await importOpenApi(services, { text }, { prefix: "deep_" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "too_deep", message: expect.stringContaining("128 levels") });
    expect(statusOf((error as { kind: "too_deep" }).kind)).toBe(422);
    expect(await snapshot()).toEqual(before);
  });

  it("an already parsed document is checked before it is copied", async () => {
    const before = await snapshot();
    await expect(previewOpenApi({ document: document({ "x-foo": deepObject(20_000) }) })).rejects.toMatchObject({ kind: "too_deep" });
    await expect(importOpenApi(services, { document: document({ "x-foo": deepObject(129) }) })).rejects.toMatchObject({
      kind: "too_deep",
    });
    expect(await snapshot()).toEqual(before);
  });

  it("deep YAML is refused on its text, twice in a row without taking the process down", async () => {
    const flow = `openapi: 3.1.0\ninfo: {title: t, version: "1"}\nx-foo: ${"[".repeat(2_000)}${"]".repeat(2_000)}\npaths: {}\n`;
    const block = `openapi: 3.1.0\nx-foo:\n${Array.from({ length: 1_000 }, (_, i) => `${" ".repeat(i + 1)}k${i}:`).join("\n")} 1\n`;
    for (const text of [flow, flow, block, block])
      await expect(previewOpenApi({ text })).rejects.toMatchObject({ kind: "too_deep", message: expect.stringContaining("YAML") });
  });

  it("an extension within the limit still imports", async () => {
    const result = await importOpenApi(services, { document: document({ "x-foo": deepObject(100) }) }, { prefix: "ok100_" });
    expect(result.tools.map((t) => t.name)).toEqual(["ok100_getItem"]);
  });

  it("a schema that nests past the limit only once its $refs are inlined is refused, naming the operation", async () => {
    // Each parameter's schema holds the previous one's 100 levels down: 6,000 levels once inlined.
    const parameters: Record<string, unknown> = { P0: { name: "p", in: "query", schema: { type: "string" } } };
    for (let i = 1; i <= 60; i++) {
      let nested: Record<string, unknown> = { $ref: `#/components/parameters/P${i - 1}/schema` };
      for (let j = 0; j < 100; j++) nested = { type: "array", items: nested };
      parameters[`P${i}`] = { name: "p", in: "query", schema: nested };
    }
    const doc = document({ components: { parameters } });
    (doc.paths as Record<string, Record<string, Record<string, unknown>>>)["/items/{id}"]!.get!.parameters = [
      { name: "id", in: "path", required: true, schema: { type: "string" } },
      { $ref: "#/components/parameters/P60" },
    ];
    const before = await snapshot();
    await expect(importOpenApi(services, { document: doc }, { prefix: "inl_" })).rejects.toMatchObject({
      kind: "invalid_document",
      message: expect.stringMatching(/GET \/items\/\{id\}.*deeper than 256 levels/),
    });
    expect(await snapshot()).toEqual(before);
  });
});

describe("a $ref with malformed percent-encoding", () => {
  /** The parameters of the document's one operation, to edit. */
  const parameters = (doc: Record<string, unknown>) =>
    (doc.paths as Record<string, Record<string, { parameters: Array<Record<string, unknown>> }>>)["/items/{id}"]!.get!.parameters;
  it.each([
    ["a parameter", (doc: Record<string, unknown>) => parameters(doc).push({ $ref: "#/%E0" })],
    ["a schema", (doc: Record<string, unknown>) => (parameters(doc)[0]!.schema = { $ref: "#/%E0" })],
    ["a component schema", (doc: Record<string, unknown>) => (parameters(doc)[0]!.schema = { $ref: "#/components/schemas/%E0" })],
  ])("in %s is a clear invalid_document", async (_label, edit) => {
    const doc = document({ components: { schemas: { Thing: { type: "string" } } } });
    edit(doc);
    const before = await snapshot();
    const error = await importOpenApi(services, { document: doc }, { prefix: "pct_" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "invalid_document" });
    expect(JSON.stringify(error) + String(error)).toMatch(/%E0/);
    expect(await snapshot()).toEqual(before);
  });
});

describe("remote API responses", () => {
  it("a JSON answer nested past 128 levels is a tool error, not a value the console stores", async () => {
    await importOpenApi(services, { document: document() }, { prefix: "resp_" });
    server.respond = () => ({ text: `${"[".repeat(5_000)}${"]".repeat(5_000)}`, headers: { "content-type": "application/json" } });
    const outcome = await services.executor.call("resp_getItem", { id: "1" });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "tool_error", message: expect.stringContaining("deeper than 128 levels") } });
    server.respond = () => ({ json: { fine: [[["yes"]]] } });
    expect(await services.executor.call("resp_getItem", { id: "1" })).toEqual({ ok: true, value: { fine: [[["yes"]]] } });
  });
});
