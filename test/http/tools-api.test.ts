import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeServer, listenLocal } from "@/lib/http/node-adapter";
import { consoleApi, type ConsoleApi } from "@/lib/api";
import type { SqliteServices } from "@/lib/services";
import { countRows } from "../support/database";
import { testServices } from "../support/services";
import { startRecordingServer, type RecordingServer } from "../integrations/recording-server";

const petstore = fs.readFileSync(path.resolve(__dirname, "../../node_modules/@readme/oas-examples/3.0/json/petstore.json"), "utf8");
const BASE = "http://127.0.0.1:3000";
const SECRET = "sk-live-never-shown-7f3a9c";

let services: SqliteServices;
let tools: ConsoleApi["tools"];
let calls: ConsoleApi["toolCalls"];
let sources: ConsoleApi["sources"];
let api: RecordingServer;
let ticketRuns = 0;

beforeAll(async () => {
  // The recording server is on 127.0.0.1: the operator allows that one address, nothing else private.
  services = testServices({ OUTBOUND_ALLOW: "127.0.0.1/32" });
  ({ tools, toolCalls: calls, sources } = consoleApi(services));
  api = await startRecordingServer();
  api.respond = (request) =>
    request.path.startsWith("/pet/")
      ? { json: { id: Number(request.path.split("/")[2]), name: "doggie", photoUrls: [] } }
      : { status: 404, json: { message: "no" } };
  // A tool that asks for approval and counts its runs, to prove a repeat never runs it twice.
  await services.registry.add(
    {
      name: "open_door",
      description: "Open the door",
      inputSchema: { type: "object", properties: { door: { type: "string" } }, required: ["door"] },
      policy: { effects: "write", confirm: true },
    },
    ({ door }) => ({ opened: door, run: ++ticketRuns }),
  );
});
afterAll(async () => {
  services.close();
  await api.close();
});

function get(pathname: string, headers: Record<string, string> = {}): Request {
  return new Request(`${BASE}${pathname}`, { headers: { host: "127.0.0.1:3000", ...headers } });
}

function send(method: string, pathname: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${BASE}${pathname}`, {
    method,
    headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const params = (values: Record<string, string>) => ({ params: Promise.resolve(values) });

/** A response's JSON; the tests check its shape with matchers. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked by the assertions, not by a type
async function body(response: Response): Promise<any> {
  return response.json();
}

describe("GET /api/tools", () => {
  it("lists summaries with a total, filtered and paged by cursor", async () => {
    const all = await body(await tools.list(get("/api/tools")));
    expect(all.total).toBe(6);
    expect(all.items.map((t: { name: string }) => t.name)).toEqual([
      "calculate",
      "create_ticket",
      "current_time",
      "get_weather",
      "issue_refund",
      "open_door",
    ]);
    expect(all.items[0]).not.toHaveProperty("inputSchema");

    const asking = await body(await tools.list(get("/api/tools?approval=required")));
    expect(asking.items.map((t: { name: string }) => t.name)).toEqual(["create_ticket", "issue_refund", "open_door"]);
    expect(asking.items.every((t: { needsApproval: boolean }) => t.needsApproval)).toBe(true);

    const text = await body(await tools.list(get("/api/tools?text=REFUND%20order&effects=destructive")));
    expect(text.items.map((t: { name: string }) => t.name)).toEqual(["issue_refund"]);

    const first = await body(await tools.list(get("/api/tools?limit=4")));
    expect(first).toMatchObject({ total: 6, nextCursor: expect.any(String) });
    const second = await body(await tools.list(get(`/api/tools?limit=4&cursor=${first.nextCursor}`)));
    expect(second.items.map((t: { name: string }) => t.name)).toEqual(["issue_refund", "open_door"]);
    expect(second.nextCursor).toBeNull();
  });

  it("answers 400 for a bad filter or cursor", async () => {
    const bad = await tools.list(get("/api/tools?effects=explosive&limit=0"));
    expect(bad.status).toBe(400);
    const error = (await body(bad)).error;
    expect(error.code).toBe("invalid_query");
    expect(error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["/effects", "/limit"]);
    expect((await tools.list(get("/api/tools?cursor=nonsense"))).status).toBe(400);
  });

  it("refuses a foreign Host, a wrong token and a token without the tools scope", async () => {
    expect((await tools.list(get("/api/tools", { host: "evil.example" }))).status).toBe(421);
    expect((await tools.list(get("/api/tools", { authorization: "Bearer aguic_wrong" }))).status).toBe(401);
    const { token } = await services.tokens.create("chat-only", ["agui"]);
    const forbidden = await tools.list(get("/api/tools", { authorization: `Bearer ${token}` }));
    expect(forbidden.status).toBe(403);
    expect((await body(forbidden)).error.code).toBe("forbidden");
  });
});

describe("GET, PATCH and DELETE /api/tools/[name]", () => {
  it("answers 404 with the error body for an unknown tool", async () => {
    for (const response of [
      await tools.get(get("/api/tools/nope"), params({ name: "nope" })),
      await tools.update(send("PATCH", "/api/tools/nope", { enabled: false }), params({ name: "nope" })),
      await tools.remove(send("DELETE", "/api/tools/nope", {}), params({ name: "nope" })),
      await tools.exports(get("/api/tools/nope/exports"), params({ name: "nope" })),
      await calls.run(send("POST", "/api/tools/nope/calls", { args: {} }), params({ name: "nope" })),
    ]) {
      expect(response.status).toBe(404);
      expect(await body(response)).toEqual({ error: { code: "tool_not_found", message: 'No tool named "nope" is registered' } });
    }
  });

  it("returns the definition without its binding", async () => {
    const { tool } = await body(await tools.get(get("/api/tools/get_weather"), params({ name: "get_weather" })));
    expect(tool).toMatchObject({
      name: "get_weather",
      inputSchema: { type: "object" },
      approval: "default",
      needsApproval: false,
      enabled: true,
    });
    expect(tool).not.toHaveProperty("binding");
  });

  it("answers 422 for a bad PATCH and changes nothing", async () => {
    const before = services.registry.get("calculate");
    for (const patch of [
      { approval: "sometimes" },
      {},
      { timeoutMs: 0 },
      { targets: ["fax"] },
      { enabled: "yes" },
      { retries: 2, colour: "red" },
    ]) {
      const response = await tools.update(send("PATCH", "/api/tools/calculate", patch), params({ name: "calculate" }));
      expect(response.status, JSON.stringify(patch)).toBe(422);
      const error = (await body(response)).error;
      expect(error.code).toBe("invalid_body");
      expect(error.issues.length).toBeGreaterThan(0);
    }
    const notJson = await tools.update(
      new Request(`${BASE}/api/tools/calculate`, {
        method: "PATCH",
        headers: { host: "127.0.0.1", "content-type": "application/json" },
        body: "{",
      }),
      params({ name: "calculate" }),
    );
    expect(notJson.status).toBe(400);
    expect(services.registry.get("calculate")).toEqual(before);
    expect(countRows(services.database, "tool_events", "tool = ?", "calculate")).toBe(0);
  });

  it("saves a policy change and appends it to the tool's audit trail", async () => {
    const response = await tools.update(
      send("PATCH", "/api/tools/calculate", { approval: "always", targets: ["openai", "mcp", "openai"], timeoutMs: 4000, retries: 1 }),
      params({ name: "calculate" }),
    );
    expect(response.status).toBe(200);
    expect((await body(response)).tool).toMatchObject({
      approval: "always",
      needsApproval: true,
      policy: { targets: ["openai", "mcp"], timeoutMs: 4000, retries: 1 },
    });
    const events = services.database.sqlite.prepare("select type, actor, data from tool_events where tool = ?").all("calculate") as Array<{
      type: string;
      actor: string;
      data: string;
    }>;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "settings_changed", actor: "local" });
    expect(JSON.parse(events[0]!.data)).toMatchObject({
      before: { approval: "default", enabled: true, timeoutMs: 2000, retries: 0 },
      after: { approval: "always", enabled: true, timeoutMs: 4000, retries: 1, targets: ["openai", "mcp"] },
    });
  });

  it("exports every format, refusing those the targets exclude with the ToolUsageError message", async () => {
    const { exports } = await body(await tools.exports(get("/api/tools/calculate/exports"), params({ name: "calculate" })));
    expect(exports.map((e: { format: string; ok: boolean }) => `${e.format}:${e.ok}`)).toEqual([
      "openai-chat:true",
      "openai-responses:true",
      "anthropic:false",
      "gemini:false",
      "mcp:true",
      "a2a:false",
    ]);
    expect(exports[0].output).toMatchObject({ type: "function", function: { name: "calculate", strict: expect.any(Boolean) } });
    expect(exports[1].output).toMatchObject({ type: "function", name: "calculate" });
    expect(exports[2].refused).toBe('Tool "calculate" is not exported to anthropic (its targets are openai, mcp)');
  });

  it("deletes a tool", async () => {
    const response = await tools.remove(send("DELETE", "/api/tools/current_time", {}), params({ name: "current_time" }));
    expect(response.status).toBe(200);
    expect(services.registry.get("current_time")).toBeUndefined();
    expect((await tools.get(get("/api/tools/current_time"), params({ name: "current_time" }))).status).toBe(404);
  });
});

describe("POST and GET /api/tools/[name]/calls", () => {
  it("runs a try through the executor and lists it, pinned calls first", async () => {
    const first = await body(
      await calls.run(send("POST", "/api/tools/get_weather/calls", { args: { city: "Paris" } }), params({ name: "get_weather" })),
    );
    expect(first).toMatchObject({ callId: expect.any(String), result: { ok: true, value: { city: "Paris" } } });
    const second = await body(
      await calls.run(
        send("POST", "/api/tools/get_weather/calls", { args: { city: "Oslo" }, callId: "try-oslo" }),
        params({ name: "get_weather" }),
      ),
    );
    expect(second.callId).toBe("try-oslo");

    const invalid = await body(
      await calls.run(send("POST", "/api/tools/get_weather/calls", { args: { town: "Paris" } }), params({ name: "get_weather" })),
    );
    expect(invalid.result).toMatchObject({ ok: false, error: { kind: "invalid_arguments", issues: expect.any(Array) } });

    let listed = (await body(await calls.list(get("/api/tools/get_weather/calls"), params({ name: "get_weather" })))).items;
    expect(listed.map((c: { callId: string }) => c.callId)).toEqual(["try-oslo", first.callId]);
    expect(listed[0]).toMatchObject({
      principal: "local",
      scope: "console:try",
      args: { city: "Oslo" },
      pinned: false,
      result: { ok: true },
    });

    const pinned = await calls.pin(
      send("POST", `/api/tools/get_weather/calls/${first.callId}/pin`, { pinned: true }),
      params({ name: "get_weather", callId: first.callId }),
    );
    expect(await body(pinned)).toEqual({ callId: first.callId, pinned: true });
    listed = (await body(await calls.list(get("/api/tools/get_weather/calls"), params({ name: "get_weather" })))).items;
    expect(listed.map((c: { callId: string; pinned: boolean }) => `${c.callId}:${c.pinned}`)).toEqual([
      `${first.callId}:true`,
      "try-oslo:false",
    ]);

    expect(
      (
        await calls.pin(
          send("POST", "/api/tools/get_weather/calls/unknown/pin", { pinned: true }),
          params({ name: "get_weather", callId: "unknown" }),
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await calls.pin(
          send("POST", "/api/tools/get_weather/calls/try-oslo/pin", { pinned: "yes" }),
          params({ name: "get_weather", callId: "try-oslo" }),
        )
      ).status,
    ).toBe(422);
  });

  it("answers a call that needs approval as pending, then from the approval when asked again with the same id, running it once", async () => {
    const request = () => send("POST", "/api/tools/open_door/calls", { args: { door: "front" }, callId: "door-1" });
    const pending = await body(await calls.run(request(), params({ name: "open_door" })));
    expect(pending).toMatchObject({
      callId: "door-1",
      result: { pending: { approvalId: expect.any(String), expiresAt: expect.any(Number) } },
    });
    const again = await body(await calls.run(request(), params({ name: "open_door" })));
    expect(again.result.pending.approvalId).toBe(pending.result.pending.approvalId);
    expect(ticketRuns).toBe(0);

    await services.approvals.decide(pending.result.pending.approvalId, { approved: true, decidedBy: "local" });
    const ran = await body(await calls.run(request(), params({ name: "open_door" })));
    expect(ran.result).toEqual({ ok: true, value: { opened: "front", run: 1 } });
    const replayed = await body(await calls.run(request(), params({ name: "open_door" })));
    expect(replayed.result).toEqual({ ok: true, value: { opened: "front", run: 1 } });
    expect(ticketRuns).toBe(1);
  });
});

describe("sources", () => {
  const importBody = (extra: Record<string, unknown> = {}) => ({
    text: petstore,
    options: { prefix: "pets_", baseUrl: api.url, auth: { kind: "header", name: "api_key", secret: SECRET } },
    ...extra,
  });
  const snapshot = () => ({ tools: services.registry.count(), sources: countRows(services.database, "sources") });

  it("a caller cannot open private addresses: allowPrivate is no request field, and what OUTBOUND_ALLOW does not list is refused", async () => {
    const before = snapshot();
    const withField = await sources.importDocument(
      send("POST", "/api/sources/openapi", { ...importBody(), options: { ...importBody().options, allowPrivate: true } }),
    );
    expect(withField.status).toBe(422);
    expect((await body(withField)).error.issues).toEqual([
      expect.objectContaining({ path: "/options", message: expect.stringContaining("allowPrivate") }),
    ]);
    // A console with no allowance (the default) refuses the same import: a tools token cannot reach internal services.
    const strict = testServices();
    try {
      const refused = await consoleApi(strict).sources.importDocument(send("POST", "/api/sources/openapi", importBody()));
      expect(refused.status).toBe(422);
      expect((await body(refused)).error).toMatchObject({
        code: "invalid_options",
        message: expect.stringMatching(/127\.0\.0\.1 is a loopback address/),
      });
      expect(strict.registry.get("pets_getPetById")).toBeUndefined();
    } finally {
      strict.close();
    }
    expect(snapshot()).toEqual(before);
  });

  it("refuses a bad document with a clear 422 and registers nothing", async () => {
    const before = snapshot();
    const cases: Array<[unknown, string]> = [
      [{ text: "openapi: [3.0" }, "invalid_document"],
      [{ text: JSON.stringify({ openapi: "3.0.0", info: { title: "t", version: "1" }, paths: {} }) }, "invalid_document"],
      [{ text: petstore.replace('"$ref": "#/components/schemas/Pet"', '"$ref": "#/components/schemas/Missing"') }, "invalid_document"],
      [{ text: petstore, options: { baseUrl: "ftp://example.com" } }, "invalid_options"],
      [{ text: petstore, options: { baseUrl: "http://127.0.0.2:1" } }, "invalid_options"],
      [{ url: "http://127.0.0.1:1/openapi.json" }, "document_unreachable"],
      [{ text: petstore, url: "http://example.com" }, "invalid_body"],
      [importBody({ options: { auth: { kind: "header", secret: "x" } } }), "invalid_body"],
    ];
    for (const [input, code] of cases) {
      const response = await sources.importDocument(send("POST", "/api/sources/openapi", input));
      const error = (await body(response)).error;
      expect([response.status, error.code], JSON.stringify(input).slice(0, 120)).toEqual([422, code]);
      expect(error.message.length).toBeGreaterThan(10);
    }
    const yaml = await body(await sources.importDocument(send("POST", "/api/sources/openapi", { text: "openapi: [3.0" })));
    expect(yaml.error.message).toMatch(/^The document is not valid YAML/);
    expect(snapshot()).toEqual(before);
  });

  it("previews without registering, warning about names already taken", async () => {
    const before = snapshot();
    const response = await sources.preview(
      send("POST", "/api/sources/openapi/preview", { text: petstore, options: { operations: { tags: ["store"] } } }),
    );
    expect(response.status).toBe(200);
    const preview = await body(response);
    expect(preview.operations.map((o: { toolName: string }) => o.toolName)).toEqual([
      "getInventory",
      "placeOrder",
      "getOrderById",
      "deleteOrder",
    ]);
    expect(snapshot()).toEqual(before);
  });

  it("imports all operations, never shows the secret, calls with it, refreshes and removes", async () => {
    const response = await sources.importDocument(send("POST", "/api/sources/openapi", importBody()));
    expect(response.status).toBe(201);
    const imported = await body(response);
    expect(imported.source).toMatchObject({
      kind: "openapi",
      name: "Swagger Petstore",
      location: "pasted",
      toolCount: 20,
      hasSecret: true,
      auth: { kind: "header", name: "api_key" },
    });
    expect(imported.tools.map((t: { name: string }) => t.name)).toContain("pets_getPetById");

    const listing = await sources.list(get("/api/sources"));
    const text = await listing.text();
    expect(text).not.toContain(SECRET);
    expect(JSON.stringify(imported)).not.toContain(SECRET);
    expect(JSON.parse(text).items).toHaveLength(1);

    const preview = await body(await sources.preview(send("POST", "/api/sources/openapi/preview", importBody())));
    expect(preview.warnings.at(-1)).toMatch(/^20 tools with these names are already registered, so the import would fail: pets_updatePet/);
    const before = snapshot();
    const duplicate = await sources.importDocument(send("POST", "/api/sources/openapi", importBody()));
    expect(duplicate.status).toBe(409);
    expect(snapshot()).toEqual(before);

    const call = await body(
      await calls.run(send("POST", "/api/tools/pets_getPetById/calls", { args: { petId: 7 } }), params({ name: "pets_getPetById" })),
    );
    expect(call.result).toEqual({ ok: true, value: { id: 7, name: "doggie", photoUrls: [] } });
    expect(api.requests.at(-1)).toMatchObject({ method: "GET", path: "/pet/7", headers: { api_key: SECRET } });

    const id = imported.source.id as string;
    const refreshed = await sources.refresh(send("POST", `/api/sources/${id}/refresh`, {}), params({ id }));
    expect(refreshed.status).toBe(200);
    expect((await body(refreshed)).source).toMatchObject({ id, status: "ok", toolCount: 20 });

    const removed = await sources.remove(send("DELETE", `/api/sources/${id}`, {}), params({ id }));
    expect(await body(removed)).toEqual({ removed: id, tools: 20 });
    expect(services.registry.get("pets_getPetById")).toBeUndefined();
    expect((await sources.remove(send("DELETE", `/api/sources/${id}`, {}), params({ id }))).status).toBe(404);
    expect((await sources.refresh(send("POST", `/api/sources/${id}/refresh`, {}), params({ id }))).status).toBe(404);
  });

  it("imports and tries a tool over a real socket", async () => {
    const server = createNodeServer([
      { method: "POST", path: "/api/sources/openapi", handler: sources.importDocument },
      { method: "GET", path: "/api/sources", handler: sources.list },
      { method: "POST", path: "/api/tools/[name]/calls", handler: calls.run },
    ]);
    const url = await listenLocal(server);
    try {
      const imported = await fetch(`${url}/api/sources/openapi`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(importBody({ options: { ...importBody().options, prefix: "sock_" } })),
      });
      expect(imported.status).toBe(201);
      const listing = await fetch(`${url}/api/sources`);
      expect(await listing.text()).not.toContain(SECRET);
      const call = await fetch(`${url}/api/tools/sock_getPetById/calls`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ args: { petId: 3 } }),
      });
      expect(await call.json()).toMatchObject({ result: { ok: true, value: { id: 3, name: "doggie" } } });
      const refused = await fetch(`${url}/api/tools/sock_getPetById/calls`, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "{}",
      });
      expect(refused.status).toBe(415);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
