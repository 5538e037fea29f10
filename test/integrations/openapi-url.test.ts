import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { buildRequest, importOpenApi, planOpenApiTools } from "@/lib/integrations/openapi";
import { createServices, type Services } from "@/lib/services";
import { tempDir } from "../support/services";
import { startRecordingServer, type RecordingServer } from "./recording-server";

let api: RecordingServer;
/** Another service on loopback that no call may reach. */
let other: RecordingServer;
let services: Services;

beforeAll(async () => {
  api = await startRecordingServer();
  other = await startRecordingServer();
  const config = loadConfig({ LOG_LEVEL: "silent", CONSOLE_DB: path.join(tempDir(), "console.db"), OUTBOUND_ALLOW: "127.0.0.1/32" });
  services = createServices(config);
});
afterAll(async () => {
  services.close();
  await api.close();
  await other.close();
});
beforeEach(() => {
  api.requests.length = 0;
  other.requests.length = 0;
});

const port = (server: RecordingServer) => new URL(server.url).port;
const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
const pathParam = (name: string) => ({ name, in: "path", required: true, schema: { type: "string" } });

/** `count` filler operations, to push a document past any operation-count shortcut. */
function filler(count: number): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) paths[`/filler${i}`] = { get: { operationId: `filler${i}`, responses: ok } };
  return paths;
}

describe("path arguments never leave the operation's path", () => {
  beforeAll(async () => {
    await importOpenApi(services, {
      document: {
        openapi: "3.1.0",
        info: { title: "Files", version: "1" },
        servers: [{ url: `${api.url}/api` }],
        paths: {
          "/files/{name}": { get: { operationId: "getFile", parameters: [pathParam("name")], responses: ok } },
          "/files/{a}{b}/meta": { get: { operationId: "getMeta", parameters: [pathParam("a"), pathParam("b")], responses: ok } },
        },
      },
    });
  });

  it.each(["..", ".", "%2e%2e", "%2E", ".%2e"])("%s as a whole segment is refused before any request", async (name) => {
    const outcome = await services.executor.call("getFile", { name });
    if (name.includes("%")) {
      // A literal percent is encoded as %25: the API receives the text, not a dot segment.
      expect(outcome).toMatchObject({ ok: true });
      expect(api.requests.map((r) => r.path)).toEqual([`/api/files/${name.replace(/%/g, "%25")}`]);
      return;
    }
    expect(outcome).toMatchObject({ ok: false, error: { kind: "tool_error", message: expect.stringContaining('"." or ".."') } });
    expect(api.requests).toEqual([]);
  });

  it("two parameters that make '..' together are refused too", async () => {
    expect(await services.executor.call("getMeta", { a: ".", b: "." })).toMatchObject({ ok: false, error: { kind: "tool_error" } });
    expect(api.requests).toEqual([]);
  });

  it.each(["../admin", "a/../../x", "//evil.test/x", "?admin=1", "#frag", "\\..\\admin", `@127.0.0.1:${"PORT"}`, "...", "..."])(
    "%s stays one segment under /api/files/ on the same origin",
    async (raw) => {
      const name = raw.replace("PORT", port(other));
      expect(await services.executor.call("getFile", { name })).toMatchObject({ ok: true });
      expect(api.requests).toHaveLength(1);
      const recorded = api.requests[0]!.path;
      expect(recorded.startsWith("/api/files/")).toBe(true);
      expect(recorded.slice("/api/files/".length)).not.toContain("/");
      expect(decodeURIComponent(recorded.slice("/api/files/".length))).toBe(name);
      expect(other.requests).toEqual([]);
    },
  );
});

describe("the origin of a call is the imported server's", () => {
  it("a path template that would reach the authority (':{port}/x') is refused at import, however many operations the document has", async () => {
    const before = services.registry.count();
    const paths = { ...filler(501), ":{port}/x": { get: { operationId: "hop", parameters: [pathParam("port")], responses: ok } } };
    await expect(
      importOpenApi(
        services,
        { document: { openapi: "3.1.0", info: { title: "Hop", version: "1" }, paths } },
        { baseUrl: "http://127.0.0.1", prefix: "hop_" },
      ),
    ).rejects.toMatchObject({ kind: "invalid_document" });
    expect(services.registry.count()).toBe(before);
    // The importer refuses it itself, for the documents the full validator does not run on.
    expect(() =>
      planOpenApiTools(
        { document: { openapi: "3.1.0", info: { title: "Hop", version: "1" }, paths }, location: "pasted" },
        { baseUrl: "http://127.0.0.1" },
      ),
    ).toThrow(expect.objectContaining({ kind: "invalid_document", issues: [expect.objectContaining({ message: 'paths: ":{port}/x"' })] }));
  });

  it("a binding stored before these checks is refused at call time instead of being sent elsewhere", () => {
    const binding = {
      method: "get" as const,
      path: ":{port}/x",
      baseUrl: "http://127.0.0.1",
      parameters: [{ name: "port", in: "path" as const, property: "port" }],
      timeoutMs: 1000,
      maxResponseBytes: 1000,
    };
    expect(() => buildRequest(binding, { port: port(other) })).toThrow(expect.objectContaining({ kind: "tool_error" }));
    expect(() => buildRequest({ ...binding, path: "/a/../../{port}" }, { port: "1" })).toThrow(
      expect.objectContaining({ kind: "tool_error" }),
    );
    expect(buildRequest({ ...binding, path: "/x/{port}", baseUrl: api.url }, { port: "1" }).url.href).toBe(`${api.url}/x/1`);
  });

  it("server variables take the document's default: an argument of the same name does not move the call", async () => {
    const result = await importOpenApi(
      services,
      {
        document: {
          openapi: "3.1.0",
          info: { title: "Vars", version: "1" },
          servers: [
            {
              url: "http://127.0.0.1:{port}/{base}",
              variables: { port: { default: port(api), enum: [port(api), port(other)] }, base: { default: "v1" } },
            },
          ],
          paths: {
            "/ping/{port}": {
              get: {
                operationId: "ping",
                parameters: [pathParam("port"), { name: "base", in: "query", schema: { type: "string" } }],
                responses: ok,
              },
            },
          },
        },
      },
      { prefix: "vars_" },
    );
    expect(result.tools[0]!.binding).toMatchObject({ baseUrl: `${api.url}/v1` });
    expect(await services.executor.call("vars_ping", { port: port(other), base: "../admin" })).toMatchObject({ ok: true });
    expect(api.requests.map((r) => [r.path, r.query])).toEqual([[`/v1/ping/${port(other)}`, { base: ["../admin"] }]]);
    expect(other.requests).toEqual([]);
  });

  it("a server variable without a default leaves no server URL, so the operator must name one", async () => {
    const document = {
      openapi: "3.1.0",
      info: { title: "NoDefault", version: "1" },
      servers: [{ url: `http://{host}:${port(api)}/v1`, variables: { host: { enum: ["127.0.0.1"] } } }],
      paths: { "/ping": { get: { operationId: "ping", responses: ok } } },
    };
    const plan = planOpenApiTools({ document, location: "pasted" });
    expect(plan.baseUrls).toEqual([""]);
    expect(plan.warnings).toEqual(["GET /ping: no absolute server URL; pass a base URL"]);
    await expect(importOpenApi(services, { document }, { prefix: "nd_" })).rejects.toMatchObject({ kind: "invalid_document" });
  });
});

describe("documents of any size are validated", () => {
  it("a 600-operation document with an invalid operation is refused by the full validator", async () => {
    const paths = filler(600) as Record<string, { get: { responses: unknown } }>;
    paths["/filler7"]!.get.responses = 5;
    const before = services.registry.count();
    await expect(
      importOpenApi(
        services,
        { document: { openapi: "3.1.0", info: { title: "Big", version: "1" }, paths } },
        { baseUrl: api.url, prefix: "big_" },
      ),
    ).rejects.toMatchObject({ kind: "invalid_document", message: "The document is not valid OpenAPI" });
    expect(services.registry.count()).toBe(before);
  });

  it("a document whose $refs inline past the validator's budget is imported with a warning instead of stalling", async () => {
    // 40 models in each of 8 layers, each referring to 4 models of the next: 4^7 copies of a leaf per use once inlined.
    const schemas: Record<string, unknown> = {};
    for (let layer = 0; layer < 8; layer++)
      for (let i = 0; i < 40; i++) {
        const properties: Record<string, unknown> = { name: { type: "string" } };
        if (layer < 7) for (let r = 0; r < 4; r++) properties[`r${r}`] = { $ref: `#/components/schemas/M${layer + 1}_${(i + r) % 40}` };
        schemas[`M${layer}_${i}`] = { type: "object", properties };
      }
    const content = { "application/json": { schema: { $ref: "#/components/schemas/M0_0" } } };
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) paths[`/m${i}`] = { get: { operationId: `m${i}`, responses: { "200": { description: "ok", content } } } };
    const started = performance.now();
    const result = await importOpenApi(
      services,
      { document: { openapi: "3.1.0", info: { title: "Fan", version: "1" }, paths, components: { schemas } } },
      { baseUrl: api.url, prefix: "fan_" },
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.tools).toHaveLength(40);
    expect(result.warnings[0]).toMatch(/too large for the full OpenAPI validator.*checked by the importer only/);
  });
});
