import { LoggingMessageNotificationSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../support/raw-http";
import { startMcpServer, type McpTestServer } from "../support/mcp-server";

let mcp: McpTestServer;
let counter = 0;

beforeAll(async () => {
  mcp = await startMcpServer();
  const { registry } = mcp.services;
  // 250 more tools so the listing takes three pages, one tool kept from MCP and one disabled.
  await registry.addMany(
    Array.from({ length: 250 }, (_, i) => ({
      spec: { name: `bulk_${String(i).padStart(3, "0")}`, description: `Bulk tool ${i}`, inputSchema: { type: "object", properties: {} } },
      handler: () => ({ i }),
    })),
  );
  await registry.add(
    { name: "agui_only", description: "Not served over MCP", inputSchema: { type: "object" }, policy: { targets: ["agui"] } },
    () => 1,
  );
  await registry.add({ name: "switched_off", description: "Disabled", inputSchema: { type: "object" } }, () => 1);
  await registry.setEnabled("switched_off", false);
  await registry.add(
    {
      name: "answer_number",
      description: "A number, not an object",
      inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false },
      outputSchema: { type: "number" },
    },
    ({ n }) => (n as number) * 2,
  );
  await registry.add({ name: "count_up", description: "Counts its runs", inputSchema: { type: "object" } }, () => ++counter);
  await registry.add({ name: "reporting", description: "Reports while it runs", inputSchema: { type: "object" } }, async (_args, call) => {
    await call.report?.progress(1, 2, "half way");
    await call.report?.log("info", { step: "halfway" });
    await call.report?.progress(2, 2);
    return { done: true };
  });
});
afterAll(() => mcp.close());

async function listAll(client: Awaited<ReturnType<McpTestServer["connect"]>>) {
  const pages = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    pages.push(page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

describe("MCP server: initialize and logging", () => {
  it("declares tools, logging and task-augmented tools/call, and takes logging/setLevel", async () => {
    const client = await mcp.connect();
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: false },
      logging: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
    await expect(client.setLoggingLevel("warning")).resolves.toEqual({});
    await client.close();
  });
});

describe("MCP server: notifications while a tool runs", () => {
  it("sends the tool's progress (to a client that gave a progress token) and its log messages on the call's SSE stream", async () => {
    const client = await mcp.connect();
    const logged: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logged.push(notification.params));
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await client.callTool({ name: "reporting", arguments: {} }, undefined, {
      onprogress: (update) => void progress.push(update),
    });
    expect(result.structuredContent).toEqual({ done: true });
    expect(progress).toEqual([
      { progress: 1, total: 2, message: "half way" },
      { progress: 2, total: 2 },
    ]);
    expect(logged).toEqual([{ level: "info", data: { step: "halfway" } }]);
    // Without a progress token, no progress, and the log message still comes.
    logged.length = 0;
    await client.callTool({ name: "reporting", arguments: {} });
    expect(logged).toHaveLength(1);
    await client.close();
  });
});

describe("MCP server: tools/list", () => {
  it("pages the registry's MCP tools in name order with a cursor, each with schemas, title and annotations", async () => {
    const client = await mcp.connect();
    const pages = await listAll(client);
    const names = pages.flat().map((t) => t.name);
    expect(pages.map((p) => p.length)).toEqual([100, 100, 58]);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain("issue_refund");
    expect(names).not.toContain("agui_only");
    expect(names).not.toContain("switched_off");

    const tools = new Map(pages.flat().map((t) => [t.name, t]));
    expect(tools.get("issue_refund")).toMatchObject({
      title: "Issue refund",
      inputSchema: { type: "object", required: ["orderId", "amount"] },
      outputSchema: { type: "object" },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      execution: { taskSupport: "optional" },
    });
    expect(tools.get("get_weather")?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    // A non-object output schema is wrapped under `result`.
    expect(tools.get("answer_number")?.outputSchema).toEqual({
      type: "object",
      properties: { result: { type: "number" } },
      required: ["result"],
    });
  });

  it("refuses a cursor it did not hand out with -32602", async () => {
    const client = await mcp.connect();
    const error = await client.listTools({ cursor: "not-a-cursor" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
  });
});

describe("MCP server: tools/call", () => {
  it("returns structuredContent with a text copy", async () => {
    const client = await mcp.connect();
    const result = await client.callTool({ name: "get_weather", arguments: { city: "Paris" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ city: "Paris", unit: "celsius" });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(result.structuredContent);
  });

  it("wraps a value that is not an object under result (and the SDK client's schema check passes)", async () => {
    const client = await mcp.connect();
    await listAll(client); // the client checks structured content against the schemas it listed last
    const result = await client.callTool({ name: "answer_number", arguments: { n: 21 } });
    expect(result.structuredContent).toEqual({ result: 42 });
    expect(result.content).toEqual([{ type: "text", text: "42" }]);
  });

  it("answers a tool failure and bad arguments as isError results naming the kind in _meta", async () => {
    const client = await mcp.connect();
    const failed = await client.callTool({ name: "calculate", arguments: { expression: "1 +" } });
    expect(failed.isError).toBe(true);
    expect(failed._meta).toEqual({ "agui-console/error_kind": "tool_error" });
    expect(JSON.parse((failed.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ error: { kind: "tool_error" } });

    const invalid = await client.callTool({ name: "get_weather", arguments: { town: "Paris" } });
    expect(invalid.isError).toBe(true);
    expect(invalid._meta).toEqual({ "agui-console/error_kind": "invalid_arguments" });
  });

  it("answers an unknown, disabled or non-MCP tool with JSON-RPC -32602", async () => {
    const client = await mcp.connect();
    for (const name of ["no_such_tool", "switched_off", "agui_only"]) {
      const error = await client.callTool({ name, arguments: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toBe(`MCP error -32602: Unknown tool: ${name}`);
    }
  });

  it("never answers a call key of a tool that needs no person from the record: the call runs again", async () => {
    const client = await mcp.connect();
    const call = () => client.callTool({ name: "count_up", arguments: {}, _meta: { "agui-console/call_id": "same-key" } });
    const first = (await call()).structuredContent;
    const second = (await call()).content;
    expect(first).toBeUndefined(); // no output schema and a number: text only
    expect(Number((second as Array<{ text: string }>)[0]!.text)).toBe(counter);
    expect(counter).toBe(2);
  });

  it("refuses a call key that is not a short string with -32602", async () => {
    const client = await mcp.connect();
    const error = await client
      .callTool({ name: "get_weather", arguments: { city: "Paris" }, _meta: { "agui-console/call_id": "x".repeat(201) } })
      .catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32602);
  });
});

describe("MCP server: HTTP", () => {
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  const headers = (extra: Record<string, string> = {}) => ({
    host: new URL(mcp.url).host,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...extra,
  });
  const code = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

  it("answers in SSE with the console's stream headers", async () => {
    const answer = await rawRequest(mcp.url, { headers: headers(), body: initialize });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(answer.headers["cache-control"]).toBe("no-cache, no-transform");
    expect(answer.body).toContain('"serverInfo":{"name":"agui-console"');
  });

  it("refuses a bad or missing token with 401 and a Bearer challenge, a token without the mcp scope with 403", async () => {
    const bad = await rawRequest(mcp.url, { headers: headers({ authorization: "Bearer nope" }), body: initialize });
    expect(bad.status).toBe(401);
    expect(bad.headers["www-authenticate"]).toMatch(/^Bearer /);
    expect(code(bad.body)).toBe("unauthenticated");

    const { token } = await mcp.services.tokens.create("no-mcp", ["agui"]);
    const forbidden = await rawRequest(mcp.url, { headers: headers({ authorization: `Bearer ${token}` }), body: initialize });
    expect(forbidden.status).toBe(403);
    expect(code(forbidden.body)).toBe("forbidden");

    const error = await mcp.connect({ token: "nope" }).catch((e: unknown) => e);
    expect((error as { code?: number }).code).toBe(401);
  });

  it("refuses anonymous callers when the console is not bound to loopback", async () => {
    const exposed = await startMcpServer({ env: { HOST: "0.0.0.0" } });
    try {
      const anonymous = await rawRequest(exposed.url, { headers: { ...headers(), host: new URL(exposed.url).host }, body: initialize });
      expect(anonymous.status).toBe(401);
      const { token } = await exposed.services.tokens.create("mcp-client", ["mcp"]);
      const client = await exposed.connect({ token });
      expect((await client.callTool({ name: "calculate", arguments: { expression: "6 * 7" } })).structuredContent).toMatchObject({
        result: 42,
      });
    } finally {
      await exposed.close();
    }
  });

  it("refuses a foreign Host (421) and a foreign Origin (403) against DNS rebinding, even with a token", async () => {
    const { token } = await mcp.services.tokens.create("rebind", ["mcp"]);
    const host = await rawRequest(mcp.url, { headers: headers({ host: "evil.example" }), body: initialize });
    expect(host.status).toBe(421);
    expect(code(host.body)).toBe("host_not_served");
    for (const auth of [{}, { authorization: `Bearer ${token}` }] as Array<Record<string, string>>) {
      const origin = await rawRequest(mcp.url, { headers: headers({ origin: "http://evil.example", ...auth }), body: initialize });
      expect(origin.status).toBe(403);
      expect(code(origin.body)).toBe("origin_not_allowed");
    }
  });

  it("bounds the body, and refuses what is not a JSON-RPC POST with the console's error body", async () => {
    const big = await rawRequest(mcp.url, {
      headers: headers({ connection: "close" }),
      body: JSON.stringify({ jsonrpc: "2.0", pad: "x".repeat(1_100_000) }),
    });
    expect(big.status).toBe(413);
    expect(code(big.body)).toBe("payload_too_large");
    const type = await rawRequest(mcp.url, { headers: headers({ "content-type": "text/plain" }), body: initialize });
    expect(type.status).toBe(415);
    const accept = await rawRequest(mcp.url, { headers: headers({ accept: "application/json" }), body: initialize });
    expect(accept.status).toBe(406);
    expect(code(accept.body)).toBe("not_acceptable");
    const notRpc = await rawRequest(mcp.url, { headers: headers(), body: JSON.stringify({ hello: 1 }) });
    expect(notRpc.status).toBe(400);
    expect(code(notRpc.body)).toBe("invalid_request");
    for (const method of ["GET", "DELETE"]) {
      const answer = await rawRequest(mcp.url, { method, headers: headers() });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe("POST");
    }
  });
});
