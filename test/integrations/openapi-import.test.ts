import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { DuplicateTool } from "@/lib/tools";
import { importOpenApi, OpenApiDocumentError, OpenApiOptionsError, previewOpenApi, refreshOpenApiSource } from "@/lib/integrations/openapi";
import { createLogger } from "@/lib/log";
import { createServices, type SqliteServices } from "@/lib/services";
import { removeSource, SourceStore } from "@/lib/sources";
import { tempDir } from "../support/services";
import { startRecordingServer, type RecordingServer } from "./recording-server";
import { OutboundGuard } from "@/lib/net";

const examples = path.resolve(__dirname, "../../node_modules/@readme/oas-examples");
const read = (file: string) => fs.readFileSync(path.join(examples, file), "utf8");

let server: RecordingServer;
let services: SqliteServices;
let sources: SourceStore;
let dbFile: string;
/** The same services with the default guard: public addresses only. */
let strict: SqliteServices;
const logLines: string[] = [];

beforeAll(async () => {
  server = await startRecordingServer();
  dbFile = path.join(tempDir(), "console.db");
  // The recording server is on 127.0.0.1: the operator's allowance names it, nothing else private.
  const config = loadConfig({ LOG_LEVEL: "debug", CONSOLE_DB: dbFile, OUTBOUND_ALLOW: "127.0.0.1/32" });
  services = createServices(config, { logger: createLogger("debug", (line) => logLines.push(line)) });
  sources = new SourceStore(services.database.db);
  strict = { ...services, outbound: new OutboundGuard() };
});
afterAll(async () => {
  services.close();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.respond = () => ({ json: { ok: true } });
});

/** Tools and sources before and after: a failed import must leave both as they were. */
async function snapshot() {
  return { tools: services.registry.count(), sources: (await sources.list()).length };
}

describe("previewOpenApi", () => {
  it("lists Petstore 3.0's operations and tool names without registering anything", async () => {
    const before = await snapshot();
    const progress: Array<[number, number]> = [];
    const preview = await previewOpenApi(
      { text: read("3.0/json/petstore.json") },
      { onProgress: (done, total) => progress.push([done, total]) },
    );
    expect(await snapshot()).toEqual(before);
    expect(preview).toMatchObject({
      title: "Swagger Petstore",
      openapi: "3.0.0",
      location: "pasted",
      baseUrls: ["http://petstore.swagger.io/v2"],
    });
    expect(preview.operations.map((o) => `${o.method} ${o.path} ${o.toolName} ${o.effects}${o.confirm ? " confirm" : ""}`)).toEqual([
      "put /pet updatePet write",
      "post /pet addPet write",
      "get /pet/findByStatus findPetsByStatus read",
      "get /pet/findByTags findPetsByTags read",
      "get /pet/{petId} getPetById read",
      "post /pet/{petId} updatePetWithForm write",
      "delete /pet/{petId} deletePet destructive confirm",
      "post /pet/{petId}/uploadImage uploadFile write",
      "get /store/inventory getInventory read",
      "post /store/order placeOrder write",
      "get /store/order/{orderId} getOrderById read",
      "delete /store/order/{orderId} deleteOrder destructive confirm",
      "post /user createUser write",
      "post /user/createWithArray createUsersWithArrayInput write",
      "post /user/createWithList createUsersWithListInput write",
      "get /user/login loginUser read",
      "get /user/logout logoutUser read",
      "get /user/{username} getUserByName read",
      "put /user/{username} updateUser write",
      "delete /user/{username} deleteUser destructive confirm",
    ]);
    expect(preview.warnings).toContain("POST /pet/{petId}/uploadImage: optional request body (multipart/form-data) left out");
    expect(preview.securitySchemes).toEqual([
      { name: "petstore_auth", type: "oauth2", supply: { kind: "bearer", name: "Authorization", note: "an access token you obtained" } },
      { name: "api_key", type: "apiKey", supply: { kind: "header", name: "api_key" } },
    ]);
    expect(progress.at(-1)).toEqual([20, 20]);
  });

  it("names operations without operationId from method and path, and filters by tag, path and operationId", async () => {
    const security = await previewOpenApi({ text: read("3.0/json/security.json") }, { prefix: "sec_" });
    expect(security.operations.map((o) => o.toolName)).toContain("sec_post_anything_no-auth");
    const byTag = await previewOpenApi({ text: read("3.0/json/petstore.json") }, { operations: { tags: ["store"] } });
    expect(byTag.operations.map((o) => o.toolName)).toEqual(["getInventory", "placeOrder", "getOrderById", "deleteOrder"]);
    const byPath = await previewOpenApi(
      { text: read("3.0/json/petstore.json") },
      { operations: { paths: ["/user/*"], operationIds: ["loginUser", "logoutUser", "addPet"] } },
    );
    expect(byPath.operations.map((o) => o.toolName)).toEqual(["loginUser", "logoutUser"]);
    await expect(previewOpenApi({ text: read("3.0/json/petstore.json") }, { operations: { operationIds: ["nope"] } })).rejects.toThrow(
      OpenApiOptionsError,
    );
  });
});

describe("importOpenApi: Petstore 3.0 against a real server", () => {
  let sourceId: string;

  beforeAll(async () => {
    const result = await importOpenApi(
      services,
      { text: read("3.0/json/petstore.json"), filename: "petstore.json" },
      { baseUrl: `${server.url}/v2`, auth: { kind: "header", name: "api_key", value: "pet-secret-1" } },
    );
    sourceId = result.source.id;
    expect(result.tools).toHaveLength(20);
  });

  it("registers one tool per operation with policies from the method and a source row", async () => {
    const get = services.registry.get("getPetById")!;
    expect(get).toMatchObject({
      kind: "openapi",
      sourceId,
      policy: { effects: "read", idempotent: true, confirm: false, openWorld: true, retries: 2 },
    });
    expect(services.registry.get("updatePet")!.policy).toMatchObject({ effects: "write", idempotent: true, confirm: false });
    expect(services.registry.get("addPet")!.policy).toMatchObject({ effects: "write", idempotent: false, confirm: false });
    expect(services.registry.get("deletePet")!.policy).toMatchObject({ effects: "destructive", idempotent: true, confirm: true });
    expect(get.policy.tags).toEqual(["openapi", "pet"]);
    const source = (await sources.get(sourceId))!;
    expect(source).toMatchObject({
      kind: "openapi",
      name: "Swagger Petstore",
      location: "file:petstore.json",
      auth: { kind: "header", name: "api_key" },
      hasSecret: true,
      status: "ok",
      toolCount: 20,
    });
    expect(JSON.stringify(await sources.list())).not.toContain("pet-secret-1");
    expect(JSON.parse((await sources.document(sourceId))!)).toMatchObject({ openapi: "3.0.0" });
  });

  it("builds input schemas from parameters (auth header left out) and the body, and output schemas from the 2xx JSON response", () => {
    expect(services.registry.get("getPetById")!.inputSchema).toEqual({
      type: "object",
      properties: { petId: { type: "integer", format: "int64", description: "ID of pet to return" } },
      required: ["petId"],
      additionalProperties: false,
    });
    // deletePet declares the api_key header, which the source's auth supplies.
    expect(Object.keys(services.registry.get("deletePet")!.inputSchema.properties as object)).toEqual(["petId"]);
    const addPet = services.registry.get("addPet")!.inputSchema;
    expect(addPet.required).toEqual(["body"]);
    expect((addPet.properties as Record<string, unknown>).body).toEqual({
      $ref: "#/$defs/Pet",
      description: "Pet object that needs to be added to the store",
    });
    const pet = (addPet.$defs as Record<string, Record<string, unknown>>).Pet!;
    expect(Object.keys(pet.properties as object)).toEqual(["category", "name", "photoUrls", "tags", "status"]); // readOnly id left out of the input
    expect((pet.properties as Record<string, unknown>).name).toEqual({ type: "string", examples: ["doggie"] });
    expect(Object.keys(addPet.$defs as object).sort()).toEqual(["Category", "Pet", "Tag"]);
    const output = services.registry.get("getPetById")!.outputSchema!;
    expect(output.$ref).toBe("#/$defs/Pet");
    expect(Object.keys((output.$defs as Record<string, Record<string, unknown>>).Pet!.properties as object)).toContain("id");
  });

  it("places path parameters and the auth header, and returns the JSON answer", async () => {
    server.respond = () => ({ json: { id: 7, name: "Rex", photoUrls: [] } });
    const result = await services.executor.call("getPetById", { petId: 7 });
    expect(result).toEqual({ ok: true, value: { id: 7, name: "Rex", photoUrls: [] } });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: "GET", path: "/v2/pet/7", query: {} });
    expect(server.requests[0]!.headers.api_key).toBe("pet-secret-1");
  });

  it("repeats exploded array query parameters", async () => {
    server.respond = () => ({ json: [] });
    expect(await services.executor.call("findPetsByStatus", { status: ["available", "sold"] })).toEqual({ ok: true, value: [] });
    expect(server.requests[0]).toMatchObject({ method: "GET", path: "/v2/pet/findByStatus", query: { status: ["available", "sold"] } });
  });

  it("sends JSON and form bodies with their content types", async () => {
    await services.executor.call("addPet", { body: { name: "Rex", photoUrls: ["http://x/1.png"], status: "available" } });
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/v2/pet" });
    expect(server.requests[0]!.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ name: "Rex", photoUrls: ["http://x/1.png"], status: "available" });
    server.requests.length = 0;
    server.respond = () => ({ status: 200, text: "" });
    expect(await services.executor.call("updatePetWithForm", { petId: 3, body: { name: "Rex", status: "sold" } })).toEqual({
      ok: true,
      value: null,
    });
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/v2/pet/3", body: "name=Rex&status=sold" });
    expect(server.requests[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  it("answers a 404 with a ToolError carrying the status and a body excerpt", async () => {
    server.respond = () => ({ status: 404, json: { message: "Pet not found" } });
    const result = await services.executor.call("getPetById", { petId: 999 });
    expect(result).toEqual({
      ok: false,
      error: {
        kind: "tool_error",
        message: 'HTTP 404 Not Found: {"message":"Pet not found"}',
        details: { status: 404, body: '{"message":"Pet not found"}' },
      },
    });
    expect(server.requests).toHaveLength(1);
  });

  it("retries 503 answers, then reports ToolFailed", async () => {
    server.respond = () => ({ status: 503, text: "busy" });
    const failed = await services.executor.call("getPetById", { petId: 1 });
    expect(failed).toEqual({ ok: false, error: { kind: "failed", message: "getPetById failed after 3 attempts" } });
    expect(server.requests).toHaveLength(3);
    server.requests.length = 0;
    let n = 0;
    server.respond = () => (++n === 1 ? { status: 429, text: "slow down" } : { json: { id: 1, name: "Rex", photoUrls: [] } });
    expect(await services.executor.call("getPetById", { petId: 1 })).toMatchObject({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  it("asks for approval before a DELETE", async () => {
    const result = await services.executor.call("deletePet", { petId: 1 });
    expect(result).toMatchObject({ pending: { approvalId: expect.any(String) } });
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a second import with the same names, leaving nothing behind", async () => {
    const before = await snapshot();
    await expect(importOpenApi(services, { text: read("3.0/json/petstore.json") }, { baseUrl: server.url })).rejects.toThrow(DuplicateTool);
    expect(await snapshot()).toEqual(before);
  });

  it("rebuilds handlers after a restart from the stored binding and the source's secret", async () => {
    const again = createServices(loadConfig({ LOG_LEVEL: "silent", CONSOLE_DB: dbFile, OUTBOUND_ALLOW: "127.0.0.1/32" }));
    try {
      server.respond = () => ({ json: { id: 5, name: "Fido", photoUrls: [] } });
      expect(await again.executor.call("getPetById", { petId: 5 })).toEqual({ ok: true, value: { id: 5, name: "Fido", photoUrls: [] } });
      expect(server.requests[0]!.headers.api_key).toBe("pet-secret-1");
    } finally {
      again.close();
    }
  });

  it("every call passes the outbound guard: without the operator's allowance, an imported tool's loopback API is refused", async () => {
    const strictRestart = createServices(loadConfig({ LOG_LEVEL: "silent", CONSOLE_DB: dbFile }));
    try {
      const result = await strictRestart.executor.call("getPetById", { petId: 5 });
      expect(result).toEqual({
        ok: false,
        error: {
          kind: "tool_error",
          message: expect.stringMatching(/The API's address is not allowed: .*127\.0\.0\.1 is a loopback address/),
        },
      });
      expect(server.requests).toHaveLength(0);
    } finally {
      strictRestart.close();
    }
  });

  it("refreshes from the stored document, keeping operator settings, and removes with its tools", async () => {
    await services.registry.update("getInventory", { enabled: false, retries: 0 });
    const refreshed = await refreshOpenApiSource(services, sourceId);
    expect(refreshed.tools).toHaveLength(20);
    expect(services.registry.get("getInventory")).toMatchObject({ enabled: false, policy: { retries: 0 } });
    expect(await sources.get(sourceId)).toMatchObject({ status: "ok", toolCount: 20 });
    expect(await removeSource({ registry: services.registry, sources }, sourceId)).toBe(20);
    expect(services.registry.get("getPetById")).toBeUndefined();
    expect(await sources.get(sourceId)).toBeUndefined();
  });
});

describe("importOpenApi: Petstore 3.1 from a URL", () => {
  it("fetches the document from loopback only when the operator allows it (OUTBOUND_ALLOW)", async () => {
    const doc = read("3.1/json/petstore.json");
    server.respond = (request) =>
      request.path === "/openapi.json" ? { text: doc, headers: { "content-type": "application/json" } } : { json: {} };
    const before = await snapshot();
    await expect(importOpenApi(strict, { url: `${server.url}/openapi.json` }, { baseUrl: server.url })).rejects.toThrow(
      /Cannot fetch the document: http:\/\/127\.0\.0\.1:\d+: 127\.0\.0\.1 is a loopback address/,
    );
    expect(await snapshot()).toEqual(before);
    const result = await importOpenApi(services, { url: `${server.url}/openapi.json` }, { baseUrl: `${server.url}/api`, prefix: "p31_" });
    expect(result.source.location).toBe(`${server.url}/openapi.json`);
    expect(result.tools.map((t) => t.name)).toContain("p31_getPetById");
    expect(services.registry.get("p31_getPetById")!.inputSchema).toEqual({
      type: "object",
      properties: { petId: { type: "integer", format: "int64", description: "ID of pet to return" } },
      required: ["petId"],
      additionalProperties: false,
    });
    server.requests.length = 0;
    server.respond = () => ({ json: { id: 1, name: "Rex", photoUrls: [] } });
    expect(await services.executor.call("p31_getPetById", { petId: 1 })).toMatchObject({ ok: true });
    expect(server.requests[0]).toMatchObject({ method: "GET", path: "/api/pet/1" });
  });

  it("refuses base URLs that are not http(s) or that point at addresses the operator did not allow", async () => {
    const before = await snapshot();
    await expect(importOpenApi(services, { text: read("3.1/json/petstore.json") }, { baseUrl: "ftp://example.com" })).rejects.toThrow(
      OpenApiOptionsError,
    );
    await expect(
      importOpenApi(services, { text: read("3.1/json/petstore.json") }, { baseUrl: "http://127.0.0.2:9/x", prefix: "no_" }),
    ).rejects.toThrow(/127\.0\.0\.2 is a loopback address/);
    // IPv4-mapped IPv6 (new URL writes it [::ffff:7f00:2]) is the IPv4 address it carries.
    await expect(
      importOpenApi(services, { text: read("3.1/json/petstore.json") }, { baseUrl: "http://[::ffff:127.0.0.2]:9/x", prefix: "no_" }),
    ).rejects.toThrow(/127\.0\.0\.2 is a loopback address/);
    await expect(importOpenApi(strict, { text: read("3.1/json/petstore.json") }, { baseUrl: server.url, prefix: "no_" })).rejects.toThrow(
      /loopback/,
    );
    await expect(
      importOpenApi(services, { text: read("3.1/json/petstore.json") }, { baseUrl: "http://169.254.169.254", prefix: "no_" }),
    ).rejects.toThrow(OpenApiOptionsError);
    expect(await snapshot()).toEqual(before);
  });
});

describe("importOpenApi: the security-scheme matrix", () => {
  const doc = () => read("3.0/json/security.json");

  it("sends a bearer token", async () => {
    await importOpenApi(services, { text: doc() }, { baseUrl: server.url, prefix: "b_", auth: { kind: "bearer", token: "tok-bearer-42" } });
    expect(await services.executor.call("b_post_anything_bearer", {})).toMatchObject({ ok: true });
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/anything/bearer" });
    expect(server.requests[0]!.headers.authorization).toBe("Bearer tok-bearer-42");
  });

  it("sends a header key", async () => {
    await importOpenApi(
      services,
      { text: doc() },
      { baseUrl: server.url, prefix: "h_", auth: { kind: "header", name: "X-API-KEY", value: "hdr-secret-7" } },
    );
    expect(await services.executor.call("h_put_anything_apiKey", {})).toMatchObject({ ok: true });
    expect(server.requests[0]).toMatchObject({ method: "PUT", path: "/anything/apiKey" });
    expect(server.requests[0]!.headers["x-api-key"]).toBe("hdr-secret-7");
  });

  it("sends a query key and never logs it", async () => {
    logLines.length = 0;
    const { source } = await importOpenApi(
      services,
      { text: doc() },
      { baseUrl: server.url, prefix: "q_", auth: { kind: "query", name: "apiKey", value: "qry-secret-9" } },
    );
    server.respond = () => ({ status: 401, text: "bad key qry-secret-9" });
    const result = await services.executor.call("q_get_anything_apiKey", {});
    expect(server.requests[0]).toMatchObject({ method: "GET", path: "/anything/apiKey", query: { apiKey: ["qry-secret-9"] } });
    // Servers that echo the request must not leak the key to the model either.
    expect(result).toEqual({
      ok: false,
      error: { kind: "tool_error", message: "HTTP 401 Unauthorized: bad key ***", details: { status: 401, body: "bad key ***" } },
    });
    expect(logLines.join("\n")).toContain("apiKey=***");
    expect(logLines.join("\n")).not.toContain("qry-secret-9");
    expect(JSON.stringify(await sources.list())).not.toContain("qry-secret-9");
    expect((await sources.get(source.id))!.auth).toEqual({ kind: "query", name: "apiKey" });
  });

  it("refuses a malformed auth option", async () => {
    const before = await snapshot();
    await expect(
      importOpenApi(services, { text: doc() }, { baseUrl: server.url, prefix: "x_", auth: { kind: "bearer", token: "" } }),
    ).rejects.toThrow(OpenApiOptionsError);
    expect(await snapshot()).toEqual(before);
  });
});

const TRICKY_YAML = `
openapi: 3.0.3
info: { title: Tricky, version: "1" }
servers: [{ url: "https://api.example.com/{version}", variables: { version: { default: v9 } } }]
paths:
  /orgs/{org}/items:
    parameters:
      - { name: org, in: path, required: true, description: Organisation slug, schema: { type: string } }
    post:
      operationId: create item!
      parameters:
        - { name: dry-run, in: query, description: Only validate, schema: { type: boolean } }
        - { name: X-Request-ID, in: header, description: Correlation id, schema: { type: string } }
        - { name: filter, in: query, style: deepObject, schema: { type: object, properties: { kind: { type: string } } } }
      requestBody:
        required: true
        description: The item
        content:
          application/json:
            schema: { $ref: "#/components/schemas/Node" }
      responses:
        "201":
          description: created
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Node" }
components:
  schemas:
    Node:
      type: object
      required: [name]
      properties:
        id: { type: integer, readOnly: true }
        name: { type: string, nullable: true, example: leaf }
        size: { type: number, minimum: 0, exclusiveMinimum: true }
        children: { type: array, items: { $ref: "#/components/schemas/Node" } }
`;

describe("importOpenApi: a tricky YAML document", () => {
  it("merges path, query and header parameters with the body, upgrades 3.0 keywords and keeps recursion as $defs", async () => {
    const preview = await previewOpenApi({ text: TRICKY_YAML });
    expect(preview.baseUrls).toEqual(["https://api.example.com/v9"]);
    expect(preview.operations.map((o) => o.toolName)).toEqual(["create_item"]);
    server.respond = () => ({ status: 201, json: { id: 1, name: null, children: [] } });
    const { tools } = await importOpenApi(services, { text: TRICKY_YAML }, { baseUrl: server.url, prefix: "t_" });
    expect(tools[0]!.inputSchema).toEqual({
      type: "object",
      properties: {
        org: { type: "string", description: "Organisation slug" },
        dry_run: { type: "boolean", description: "Only validate" },
        X_Request_ID: { type: "string", description: "Correlation id" },
        filter: { type: "object", properties: { kind: { type: "string" } } },
        body: { $ref: "#/$defs/Node", description: "The item" },
      },
      required: ["org", "body"],
      additionalProperties: false,
      $defs: {
        Node: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: ["string", "null"], examples: ["leaf"] },
            size: { type: "number", exclusiveMinimum: 0 },
            children: { type: "array", items: { $ref: "#/$defs/Node" } },
          },
        },
      },
    });
    const result = await services.executor.call("t_create_item", {
      org: "acme co",
      dry_run: true,
      X_Request_ID: "r-1",
      filter: { kind: "box" },
      body: { name: "root", children: [{ name: null }] },
    });
    expect(result).toEqual({ ok: true, value: { id: 1, name: null, children: [] } });
    const request = server.requests.at(-1)!;
    expect(request).toMatchObject({
      method: "POST",
      path: "/orgs/acme%20co/items",
      query: { "dry-run": ["true"], "filter[kind]": ["box"] },
    });
    expect(request.headers["x-request-id"]).toBe("r-1");
    expect(JSON.parse(request.body)).toEqual({ name: "root", children: [{ name: null }] });
  });
});

describe("bad documents register nothing", () => {
  const petstore = () =>
    JSON.parse(read("3.0/json/petstore.json")) as Record<string, Record<string, Record<string, Record<string, unknown>>>>;

  it.each([
    ["invalid YAML", { text: "openapi: 3.0.0\ninfo: [unclosed" }, /not valid YAML/],
    ["not OpenAPI", { text: '{"hello": "world"}' }, /no "openapi" version/],
    ["Swagger 2.0", { text: '{"swagger": "2.0", "paths": {}}' }, /Swagger 2.0 documents are not supported/],
    ["no operations", { text: '{"openapi": "3.0.0", "info": {"title": "x", "version": "1"}, "paths": {}}' }, /no paths/],
    [
      "only unusable operations",
      {
        text: '{"openapi": "3.1.0", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"options": {"responses": {"200": {"description": "ok"}}}}}}',
      },
      /no operations/,
    ],
  ])("%s", async (_label, input, message) => {
    const before = await snapshot();
    const error = await importOpenApi(services, input, { baseUrl: server.url }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenApiDocumentError);
    expect(error).toMatchObject({ name: "OpenApiDocumentError", kind: "invalid_document", message: expect.stringMatching(message) });
    expect(await snapshot()).toEqual(before);
  });

  it("a broken $ref", async () => {
    const doc = petstore();
    doc.paths!["/pet"]!.post!.requestBody = { $ref: "#/components/requestBodies/Nope" };
    const before = await snapshot();
    await expect(importOpenApi(services, { document: doc }, { baseUrl: server.url, prefix: "br_" })).rejects.toMatchObject({
      kind: "invalid_document",
      issues: [expect.objectContaining({ message: expect.stringMatching(/Missing \$ref pointer "#\/components\/requestBodies\/Nope"/) })],
    });
    expect(await snapshot()).toEqual(before);
  });

  it("a remote $ref, which is never fetched", async () => {
    const doc = petstore();
    doc.paths!["/pet"]!.post!.requestBody = { $ref: `${server.url}/remote.json#/Body` };
    const before = await snapshot();
    server.requests.length = 0;
    await expect(importOpenApi(services, { document: doc }, { baseUrl: server.url, prefix: "rr_" })).rejects.toThrow(
      /Remote \$ref .* is not fetched/,
    );
    expect(server.requests).toHaveLength(0);
    expect(await snapshot()).toEqual(before);
  });

  it("an invalid document, with the validator's reason", async () => {
    const doc = petstore();
    doc.paths!["/pet"]!.post!.responses = 5 as unknown as Record<string, unknown>;
    const before = await snapshot();
    await expect(importOpenApi(services, { document: doc }, { baseUrl: server.url, prefix: "iv_" })).rejects.toMatchObject({
      message: "The document is not valid OpenAPI",
      issues: expect.arrayContaining([expect.objectContaining({ message: expect.stringMatching(/^TYPE must be object/) })]),
    });
    expect(await snapshot()).toEqual(before);
  });
});
