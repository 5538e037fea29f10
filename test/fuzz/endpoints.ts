import type { DatabaseHandle } from "@/lib/db";
import { nastyString, mixedString } from "./generators";
import type { Random } from "./random";

/**
 * Every endpoint of the console's API, as the fuzz suite drives it: for each route file under
 * app/api and each method it exports, what a well-formed request looks like (route parameters,
 * query, body), so that the fuzz can start from something plausible and break it in every
 * direction. test/fuzz/endpoints.test.ts fails when a route file exports a method missing here, so
 * a new endpoint joins the fuzz when it is added.
 */

/** Ids that exist in the console's database right now, so requests reach past "not found". */
export class World {
  constructor(private readonly database: DatabaseHandle) {}

  private column(sql: string): string[] {
    return (this.database.sqlite.prepare(sql).all() as Array<{ v: string }>).map((row) => row.v);
  }

  tools = () => this.column("select name as v from tools order by name limit 50");
  approvals = () => this.column("select id as v from approvals order by created_at desc limit 50");
  pendingApprovals = () => this.column("select id as v from approvals where status = 'pending' order by created_at desc limit 50");
  runs = () => this.column("select id as v from runs order by started_at desc limit 50");
  threads = () => this.column("select id as v from threads order by updated_at desc limit 50");
  sources = () => this.column("select id as v from sources limit 50");
  /** The names of the LLM agents added in Settings (their keys are `agents.<name>`). */
  agentProfiles = () => this.column("select substr(key, 8) as v from settings where key like 'agents.%' limit 50");
  /** Tokens the fuzz may revoke: not the ones it signs its own requests with (named fuzz-*, made by the pass). */
  tokens = () =>
    this.column("select id as v from api_tokens where name not in ('fuzz-all', 'fuzz-agui', 'fuzz-tools', 'fuzz-approvals') limit 50");
  calls = () =>
    (
      this.database.sqlite.prepare("select tool, call_id as callId from call_results order by created_at desc limit 50").all() as Array<{
        tool: string;
        callId: string;
      }>
    ).map((c) => c);
}

/** A plausible request to one endpoint; the fuzz mutates every part of it. */
export interface EndpointShape {
  /** The dynamic segments, by name, with values that usually exist. */
  params?: (r: Random, world: World) => Record<string, string>;
  /** Query parameters a well-behaved client sends. */
  query?: (r: Random, world: World) => Record<string, string | undefined>;
  /** A well-formed body; present only for endpoints that read one. */
  body?: (r: Random, world: World, params: Record<string, string>) => unknown;
  /** The answer is a stream (SSE) that may not end by itself: read a bounded part, then cancel. */
  stream?: boolean;
}

/** An existing value most of the time, else something odd (missing ids are part of the test). */
function existingOr(r: Random, values: readonly string[]): string {
  return values.length && r.chance(0.75) ? r.pick(values) : nastyString(r);
}

/** A body for POST (with a name) or PUT /api/settings/agents: mostly valid, sometimes not. */
function agentProfileBody(r: Random, world: World, withName: boolean): Record<string, unknown> {
  return {
    ...(withName && {
      name: r.pick([`fuzz-${r.int(1_000_000)}`, "assistant", "Demo", "", "has space", "x".repeat(41), "remote:x", nastyString(r)]),
    }),
    ...((withName || r.chance(0.5)) && { model: r.pick(["openai:gpt-5-mini", "anthropic:claude-sonnet-4-5", "gpt-5", "x:", 42]) }),
    ...(r.chance(0.4) && { description: r.pick(["Answers billing questions.", "", null, "x".repeat(301), nastyString(r)]) }),
    ...(r.chance(0.4) && { systemPrompt: r.pick(["Be brief.", "", null, "x".repeat(r.pick([10, 20_001]))]) }),
    ...(r.chance(0.4) && { maxSteps: r.pick([1, 5, 100, 0, 101, 2.5, null]) }),
    ...(r.chance(0.4) && { tools: r.pick([null, [], world.tools().slice(0, 3), ["no_such_tool"], [nastyString(r)]]) }),
    ...(r.chance(0.1) && { apiKey: "sk-never-taken" }),
  };
}

/** Arguments for the imported search tool: input its patterns would backtrack on, and deep trees. */
const SEARCH_ARGS = (r: Random): Record<string, unknown> => ({
  q: "a".repeat(r.pick([5, 30, 5000])) + "!",
  password: r.pick(["short", "longenough1"]),
  tree: ((depth: number) => JSON.parse('{"children":['.repeat(depth) + "{}" + "]}".repeat(depth)) as unknown)(r.pick([3, 30, 70])),
});

const TOOL_ARGS: Record<string, (r: Random) => Record<string, unknown>> = {
  get_weather: (r) => ({ city: r.pick(["Paris", "Tokyo", "", "😀"]) }),
  calculate: (r) => ({ expression: r.pick(["2+2", "6 * 7", "1/0", "sqrt(-1)", "(".repeat(200), "9".repeat(400)]) }),
  current_time: (r) => (r.chance(0.5) ? {} : { timezone: r.pick(["UTC", "Europe/Paris", "Mars/Olympus"]) }),
  create_ticket: (r) => ({ title: r.pick(["Printer", "x".repeat(500)]), priority: r.pick(["low", "high", "urgent"]) }),
  issue_refund: (r) => ({ orderId: r.pick(["A-1", "B-2"]), amount: r.pick([1, 10.5, -3, 1e9]) }),
};

const USER_TEXTS = [
  "hello",
  "what is the weather in Paris?",
  "calculate 6 * 7",
  "what time is it",
  "create a ticket: printer on fire",
  "refund order A-1 for 10",
  "/stream 40",
  "/calculate 2+2",
  "/issue_refund",
  "/unknown_tool {}",
];

/** A RunAgentInput that the demo agent runs, sometimes resuming approvals the world holds. */
function runInput(r: Random, world: World): Record<string, unknown> {
  const threads = world.threads();
  const pending = world.pendingApprovals();
  const input: Record<string, unknown> = {
    threadId: threads.length && r.chance(0.3) ? r.pick(threads) : r.chance(0.8) ? `fuzz-thread-${r.int(1e9)}` : nastyString(r),
    // Run ids are the client's choice: some carry quotes, CR/LF or lone surrogates into the run's records and downloads.
    runId: r.chance(0.8) ? `fuzz-run-${r.int(1e9)}` : nastyString(r),
    messages: [{ id: `m-${r.int(1e9)}`, role: "user", content: r.chance(0.8) ? r.pick(USER_TEXTS) : nastyString(r) }],
    tools: r.chance(0.3) ? [{ name: "client_tool", description: "a client tool", parameters: { type: "object" } }] : [],
    context: [],
    state: r.chance(0.7) ? {} : { note: nastyString(r) },
    forwardedProps: {},
  };
  if (pending.length && r.chance(0.3))
    input.resume = [{ interruptId: r.pick(pending), status: "resolved", payload: { approved: r.chance(0.5) } }];
  return input;
}

/** A small OpenAPI document: a path parameter with a pattern, and a body with hostile patterns and a recursive schema. */
export const FUZZ_DOCUMENT = {
  openapi: "3.0.3",
  info: { title: "Fuzz pets", version: "1.0.0" },
  // The suite allows 127.0.0.1 outbound: calls to this server are refused at once (nothing listens on port 9).
  servers: [{ url: "http://127.0.0.1:9/v1" }],
  paths: {
    "/pets/{id}": {
      get: {
        operationId: "getPet",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^[a-z0-9]+$" } }],
        responses: { "200": { description: "a pet" } },
      },
    },
    "/search": {
      post: {
        operationId: "search",
        requestBody: {
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  // A pattern that backtracks for ever on a native engine, and one RE2 cannot run.
                  q: { type: "string", pattern: "^(a+)+$" },
                  password: { type: "string", pattern: "^(?=.*\\d).{8,}$" },
                  tree: { $ref: "#/components/schemas/Tree" },
                },
              },
            },
          },
        },
        responses: { "200": { description: "found" } },
      },
    },
  },
  components: {
    schemas: { Tree: { type: "object", properties: { children: { type: "array", items: { $ref: "#/components/schemas/Tree" } } } } },
  },
};

/** OpenAPI document texts: the one above, and ones broken the ways documents have broken the importer. */
function documentText(r: Random): string {
  return r.weighted<string>([
    [5, () => JSON.stringify(FUZZ_DOCUMENT)],
    [
      1,
      () =>
        JSON.stringify({
          ...FUZZ_DOCUMENT,
          components: { schemas: { Tree: { $ref: r.pick(["#/%E0", "#/components/schemas/Tree", "#/..", "x.json#/a"]) } } },
        }),
    ],
    [1, () => JSON.stringify({ ...FUZZ_DOCUMENT, "x-deep": JSON.parse(deepJsonText(r.pick([100, 127, 129, 600]))) })],
    [
      1,
      () =>
        "openapi: 3.0.3\ninfo: {title: y, version: '1'}\npaths:\n" + "  ".repeat(1) + "x:\n" + "- ".repeat(r.pick([10, 300, 3000])) + "a\n",
    ],
    [1, () => "a: [" + "[".repeat(r.pick([200, 5000])) + "]"],
    [
      1,
      () =>
        JSON.stringify({
          ...FUZZ_DOCUMENT,
          paths: Object.fromEntries(
            Array.from({ length: 600 }, (_, i) => [
              `/p${i}`,
              { get: { operationId: `op${i}`, responses: { "200": { description: "ok" } } } },
            ]),
          ),
        }),
    ],
  ]);
}

/** Nested arrays as JSON text (built without recursion). */
function deepJsonText(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

/** An OpenAPI import or preview body: a small document as text, or a URL the outbound guard refuses. */
function importBody(r: Random, withName: boolean): Record<string, unknown> {
  const document = r.chance(0.7)
    ? { text: documentText(r), filename: r.pick(["pets.json", "pets.yaml", '"; x=".json', "..\\..\\x"]) }
    : // Only addresses the guard refuses before connecting: the suite must not wait on the network.
      { url: r.pick(["http://127.0.0.1:1/openapi.json", "http://[::ffff:127.0.0.1]:9/x", "file:///etc/passwd", "ftp://x", "not a url"]) };
  const options: Record<string, unknown> = { prefix: `fz${r.int(1e6)}_` };
  if (r.chance(0.2)) options.allow = [r.pick(["127.0.0.1/32", "10.0.0.0/8", "example.com", "not-a-range/99"])];
  if (r.chance(0.2)) options.auth = { kind: r.pick(["bearer", "header", "query"]), name: "X-Key", secret: "s3cret" };
  return { ...document, options, ...(withName && { name: `Fuzz ${r.int(1000)}` }) };
}

/**
 * An MCP import or connection-test body. Only targets that fail at once: refused or closed
 * addresses, and programs that do not exist or exit before the handshake (the suite must not wait).
 */
function mcpBody(r: Random): Record<string, unknown> {
  const target = r.chance(0.5)
    ? {
        transport: "http",
        url: r.pick(["http://127.0.0.1:1/mcp", "http://[::ffff:127.0.0.1]:9/x", "file:///etc/passwd", "ftp://x", "not a url"]),
        ...(r.chance(0.3) && { headers: r.pick([{ "X-A": "b" }, { Authorization: "x" }, { "X-A": "a\r\nB: c" }, { Host: "evil" }]) }),
      }
    : {
        transport: r.pick(["stdio", "stdio", "ssh"]),
        command: r.pick(["/nonexistent/mcp-server", "true", "", "no such program"]),
        ...(r.chance(0.3) && { args: [nastyString(r)] }),
        ...(r.chance(0.2) && { cwd: r.pick(["/", "relative", "/nonexistent"]) }),
        ...(r.chance(0.2) && { env: { [r.pick(["OK", "BAD NAME", "1X"])]: "v" } }),
      };
  const body: Record<string, unknown> = { target, options: { prefix: `fz${r.int(1e6)}_` } };
  if (r.chance(0.2)) body.bearer = r.pick(["token", "a\nb"]);
  if (r.chance(0.2)) body.secrets = r.pick([{ headers: { "X-Key": "s" } }, { env: { KEY: "s" } }, { other: 1 }]);
  if (r.chance(0.1)) (body.options as Record<string, unknown>).allow = [r.pick(["127.0.0.1/32", "not-a-range/99"])];
  return body;
}

/** An A2A import or card-test body: only agents that fail at once (refused or closed addresses, bad URLs). */
function a2aBody(r: Random): Record<string, unknown> {
  const body: Record<string, unknown> = {
    url: r.pick(["http://127.0.0.1:1", "http://[::ffff:127.0.0.1]:9/x", "file:///etc/passwd", "http://u:p@127.0.0.1:1/", "not a url", ""]),
    options: { prefix: `fz${r.int(1e6)}_` },
  };
  if (r.chance(0.2)) body.bearer = r.pick(["token", "a\nb"]);
  if (r.chance(0.2)) body.secrets = r.pick([{ headers: { "X-Key": "s" } }, { headers: { "A2A-Version": "9" } }, { env: { KEY: "s" } }]);
  if (r.chance(0.1)) (body.options as Record<string, unknown>).allow = [r.pick(["127.0.0.1/32", "not-a-range/99"])];
  return body;
}

/** A remote AG-UI agent's body: only endpoints that fail at once (refused or closed addresses, bad URLs, bad names). */
function aguiBody(r: Random): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: r.pick([`fz${r.int(1e6)}`, "", "has space", "x".repeat(70), nastyString(r)]),
    url: r.pick([
      "http://127.0.0.1:1/api/agui/demo",
      "http://[::ffff:127.0.0.1]:9/x",
      "file:///etc/passwd",
      "http://u:p@127.0.0.1:1/",
      "not a url",
      "",
    ]),
  };
  if (r.chance(0.2)) body.bearer = r.pick(["token", "a\nb"]);
  if (r.chance(0.2)) body.secrets = r.pick([{ headers: { "X-Key": "s" } }, { headers: { Host: "evil" } }, { env: { KEY: "s" } }]);
  if (r.chance(0.1)) body.options = { allow: [r.pick(["127.0.0.1/32", "not-a-range/99"])] };
  return body;
}

const LIMITS = ["1", "2", "10", "-5", "0", "abc", "1e2", "0x10", " 3", "", "99999999999", "1.5"];

/** The console's API endpoints, keyed "METHOD /path" with Next's `[param]` segments. */
export const ENDPOINTS: Record<string, EndpointShape> = {
  // A2A JSON-RPC as the v0.3 layer reads it (the fuzz sends no A2A-Version): calls, odd parts, task ids, a v1 name.
  "POST /api/a2a": {
    body: (r, world) => ({
      jsonrpc: "2.0",
      id: r.pick([1, "x", null]),
      method: r.pick(["message/send", "message/stream", "tasks/get", "tasks/cancel", "SendMessage", "nope"]),
      params: r.weighted<unknown>([
        [
          3,
          () => ({
            message: {
              kind: "message",
              messageId: nastyString(r),
              role: r.pick(["user", "agent", "bogus"]),
              parts: [
                r.chance(0.7)
                  ? { kind: "data", data: { tool: existingOr(r, world.tools()), arguments: { expression: "1+2", city: "Paris" } } }
                  : { kind: "text", text: r.pick(USER_TEXTS) },
              ],
              ...(r.chance(0.3) && { taskId: nastyString(r) }),
            },
          }),
        ],
        [1, () => ({ id: nastyString(r) })],
        [1, () => r.pick([null, [], "x", { message: 7 }])],
      ]),
    }),
    stream: true,
  },
  "GET /api/a2a": {},
  "OPTIONS /api/a2a": {},
  "GET /api/agui": {},
  "OPTIONS /api/agui": {},
  "POST /api/agui": { body: runInput, stream: true },
  "POST /api/agui/[agent]": {
    params: (r) => ({ agent: r.chance(0.8) ? r.pick(["demo", "plain-chat"]) : nastyString(r) }),
    body: runInput,
    stream: true,
  },
  "OPTIONS /api/agui/[agent]": {
    params: (r) => ({ agent: r.chance(0.8) ? r.pick(["demo", "plain-chat"]) : nastyString(r) }),
  },
  "GET /api/approvals": {
    query: (r, world) =>
      r.weighted<Record<string, string>>([
        [2, () => ({})],
        [2, () => ({ status: r.pick(["pending", "approved,denied", "pending,,", "bogus"]) })],
        [1, () => ({ q: nastyString(r), limit: r.pick(LIMITS) })],
        [1, () => ({ cursor: r.pick(["", "garbage", "eyJ4IjoxfQ", mixedString(r, 30)]) })],
        [1, () => ({ threadId: existingOr(r, world.threads()), tool: nastyString(r) })],
      ]),
  },
  "GET /api/approvals/[id]": { params: (r, world) => ({ id: existingOr(r, world.approvals()) }) },
  "POST /api/approvals/[id]/decision": {
    params: (r, world) => ({ id: existingOr(r, world.approvals()) }),
    body: (r) => ({
      approved: r.chance(0.5),
      ...(r.chance(0.3) && { reason: "fuzz" }),
      ...(r.chance(0.2) && { editedArgs: { orderId: "A-1", amount: 1 } }),
      ...(r.chance(0.2) && { rememberForThread: true }),
    }),
  },
  "POST /api/approvals/decisions": {
    body: (r, world) => ({
      ids: Array.from({ length: r.between(1, 3) }, () => existingOr(r, world.approvals())),
      approved: r.chance(0.5),
    }),
  },
  "GET /api/approvals/events": {
    query: (r, world) => (r.chance(0.5) ? {} : { threadId: existingOr(r, world.threads()) }),
    stream: true,
  },
  "GET /api/health": {},
  // The benchmarks' baseline routes: 404 unless the console was started with CONSOLE_BENCH_ROUTES=1.
  "GET /api/bench/empty": {},
  "POST /api/bench/empty": { body: (r) => (r.chance(0.5) ? {} : { text: mixedString(r, 40) }) },
  "POST /api/bench/mcp": {
    body: (r) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: r.pick(["noop", nastyString(r)]), arguments: {} } }),
  },
  "POST /api/bench/a2a": {
    body: (r) => ({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: mixedString(r, 20), role: "ROLE_USER", parts: [{ data: { tool: "noop", arguments: {} } }] } },
    }),
  },
  "POST /api/mcp": {
    // A JSON-RPC message as an MCP client sends it (the fuzz rarely sends the Accept it needs: 406 is a refusal too).
    body: (r, world) =>
      r.weighted<unknown>([
        [
          1,
          () => ({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
          }),
        ],
        [
          2,
          () => ({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/list",
            params: r.chance(0.5) ? {} : { cursor: r.pick(["", "garbage", mixedString(r, 30)]) },
          }),
        ],
        [
          3,
          () => ({
            jsonrpc: "2.0",
            id: 3,
            method: "tools/call",
            params: {
              name: existingOr(r, world.tools()),
              arguments: { city: "Paris", expression: "1+2", orderId: "1", amount: 1 },
              ...(r.chance(0.3) && { task: {} }),
              ...(r.chance(0.3) && { _meta: { "agui-console/call_id": r.chance(0.5) ? nastyString(r) : 7 } }),
            },
          }),
        ],
        [
          1,
          () => ({
            jsonrpc: "2.0",
            id: 4,
            method: r.pick(["tasks/list", "tasks/get", "tasks/result", "tasks/cancel"]),
            params: { taskId: nastyString(r) },
          }),
        ],
        [
          1,
          () => [
            { jsonrpc: "2.0", id: 5, method: "ping" },
            { jsonrpc: "2.0", method: "notifications/initialized" },
          ],
        ],
      ]),
    stream: true,
  },
  "GET /api/mcp": {},
  "OPTIONS /api/mcp": {},
  "DELETE /api/mcp": {},
  "GET /api/runs/[id]/events": {
    params: (r, world) => ({ id: existingOr(r, world.runs()) }),
    query: (r) => (r.chance(0.5) ? {} : { format: r.pick(["json", "jsonl", "xml", ""]) }),
  },
  "GET /api/runs/[id]/stream": {
    params: (r, world) => ({ id: existingOr(r, world.runs()) }),
    query: (r) => (r.chance(0.5) ? {} : { after: r.pick(["-1", "0", "3", "-2", "x", "1e99", ""]) }),
    stream: true,
  },
  "GET /api/session": {},
  "POST /api/session": { body: (r) => ({ token: r.pick(["", "not-a-token", "x".repeat(600), "acx_" + mixedString(r, 20)]) }) },
  "DELETE /api/session": {},
  "GET /api/settings": {},
  // Settings as an admin sends them, and the values the settings API must refuse (keys are never echoed back).
  "PUT /api/settings": {
    body: (r, world) => ({
      ...(r.chance(0.6) && {
        model: r.pick(["openai:gpt-5-mini", "anthropic:claude-sonnet-4-5", "openai:llama3.1:8b", "gpt-5", "x:", null]),
      }),
      ...(r.chance(0.4) && { systemPrompt: r.pick(["Be brief.", "", null, nastyString(r), "x".repeat(r.pick([10, 20_001]))]) }),
      ...(r.chance(0.4) && { maxSteps: r.pick([1, 5, 100, 0, 101, 2.5, -1, null]) }),
      ...(r.chance(0.4) && { tools: r.pick([null, [], world.tools().slice(0, 3), ["no_such_tool"], [nastyString(r)]]) }),
      ...(r.chance(0.4) && {
        providers: {
          [r.pick(["openai", "anthropic", "gemini", "mistral"])]: {
            ...(r.chance(0.6) && { apiKey: r.pick(["sk-fuzz-key", "has space", "", null, "a\nb", "k".repeat(1001)]) }),
            ...(r.chance(0.6) && {
              baseUrl: r.pick(["http://127.0.0.1:1/v1", "https://api.example.com/", "file:///etc/passwd", "not a url", null]),
            }),
          },
        },
      }),
    }),
  },
  // An added LLM agent: fresh, taken and malformed names, the assistant's own value rules, unknown tools.
  "POST /api/settings/agents": { body: (r, world) => agentProfileBody(r, world, true) },
  "PUT /api/settings/agents/[name]": {
    params: (r, world) => ({ name: existingOr(r, world.agentProfiles()) }),
    body: (r, world) => agentProfileBody(r, world, false),
  },
  "DELETE /api/settings/agents/[name]": { params: (r, world) => ({ name: existingOr(r, world.agentProfiles()) }) },
  // API tokens: fresh, taken and malformed names, known and unknown scopes (the fuzz's own tokens are never revoked).
  "GET /api/tokens": {},
  "POST /api/tokens": {
    body: (r) => ({
      name: r.pick([`fuzz-made-${r.int(1_000_000)}`, "fuzz-all", "", "has space", "x".repeat(65), nastyString(r)]),
      scopes: r.pick([["agui"], ["agui", "approvals"], [], ["agui", "agui"], ["root"], "agui", [nastyString(r)]]),
    }),
  },
  // Embed tokens: known and unknown agents, lifetimes in and out of range, good and bad origins.
  "POST /api/tokens/embed": {
    body: (r) => ({
      agent: r.pick(["demo", "plain-chat", "", "nobody", nastyString(r)]),
      ...(r.chance(0.5) && { ttlSeconds: r.pick([60, 3600, 86_400, 59, 86_401, 1.5, "3600"]) }),
      ...(r.chance(0.5) && { origins: r.pick([["http://127.0.0.2:3000"], ["not an origin"], [], "http://x", [nastyString(r)]]) }),
    }),
  },
  "DELETE /api/tokens/[id]": { params: (r, world) => ({ id: existingOr(r, world.tokens()) }) },
  "POST /api/sources/[id]/refresh": { params: (r, world) => ({ id: existingOr(r, world.sources()) }) },
  "DELETE /api/sources/[id]": { params: (r, world) => ({ id: existingOr(r, world.sources()) }) },
  "POST /api/sources/openapi/preview": { body: (r) => importBody(r, false) },
  "POST /api/sources/openapi": { body: (r) => importBody(r, true) },
  "POST /api/sources/mcp/test": { body: mcpBody },
  "POST /api/sources/mcp": { body: mcpBody },
  "POST /api/sources/a2a/test": { body: a2aBody },
  "POST /api/sources/a2a": { body: a2aBody },
  "POST /api/sources/agui/test": { body: aguiBody },
  "POST /api/sources/agui": { body: aguiBody },
  "GET /api/sources": {},
  "GET /api/threads/[id]": { params: (r, world) => ({ id: existingOr(r, world.threads()) }) },
  "GET /api/threads": { query: (r) => (r.chance(0.4) ? {} : { limit: r.pick(LIMITS) }) },
  "POST /api/tools/[name]/calls/[callId]/pin": {
    params: (r, world) => {
      const calls = world.calls();
      if (calls.length && r.chance(0.7)) {
        const call = r.pick(calls);
        return { name: call.tool, callId: call.callId };
      }
      return { name: existingOr(r, world.tools()), callId: nastyString(r) };
    },
    body: (r) => ({ pinned: r.chance(0.5) }),
  },
  "GET /api/tools/[name]/calls": {
    params: (r, world) => ({ name: existingOr(r, world.tools()) }),
    query: (r) => (r.chance(0.5) ? {} : { limit: r.pick(LIMITS) }),
  },
  "POST /api/tools/[name]/calls": {
    params: (r, world) => {
      const imported = world.tools().filter((name) => name.endsWith("search"));
      return {
        name: r.weighted<string>([
          [6, () => r.pick(Object.keys(TOOL_ARGS))],
          [imported.length ? 3 : 0, () => r.pick(imported)],
          [2, () => existingOr(r, world.tools())],
        ]),
      };
    },
    body: (r, _world, { name = "" }) => {
      // Arguments for the tool the path names, mostly; another tool's now and then.
      const argsFor =
        Object.hasOwn(TOOL_ARGS, name) && r.chance(0.8)
          ? TOOL_ARGS[name]!
          : name.endsWith("search")
            ? SEARCH_ARGS
            : r.pick(Object.values(TOOL_ARGS));
      return { args: argsFor(r), ...(r.chance(0.4) && { callId: `fuzz-${r.int(1000)}` }) };
    },
  },
  "GET /api/tools/[name]/exports": { params: (r, world) => ({ name: existingOr(r, world.tools()) }) },
  "GET /api/tools/[name]": { params: (r, world) => ({ name: existingOr(r, world.tools()) }) },
  "PATCH /api/tools/[name]": {
    params: (r, world) => ({ name: existingOr(r, world.tools()) }),
    body: (r) =>
      r.weighted<Record<string, unknown>>([
        [2, () => ({ enabled: r.chance(0.7) })],
        [1, () => ({ approval: r.pick(["default", "always", "never", "once_per_thread"]) })],
        [1, () => ({ targets: ["agui", "mcp"] })],
        [1, () => ({ timeoutMs: r.pick([1000, 0, -1, 1e12]), retries: r.pick([0, 2, 99]) })],
      ]),
  },
  // Deleting tools is fuzzed too; the suite puts the demo tools back now and then (see the pass).
  "DELETE /api/tools/[name]": { params: (r, world) => ({ name: existingOr(r, world.tools()) }) },
  "GET /api/tools": {
    query: (r) =>
      r.weighted<Record<string, string>>([
        [2, () => ({})],
        [1, () => ({ text: nastyString(r), limit: r.pick(LIMITS) })],
        [1, () => ({ cursor: r.pick(["", "garbage", "eyJ4IjoxfQ", "%E0", mixedString(r, 40)]) })],
        [1, () => ({ effects: r.pick(["read", "write", "bogus"]), enabled: r.pick(["true", "false", "yes"]) })],
        [1, () => ({ unknown: "1" })],
      ]),
  },
};

/** "GET /api/tools/[name]" -> ["GET", "/api/tools/[name]"]. */
export function splitKey(key: string): [method: string, path: string] {
  const at = key.indexOf(" ");
  return [key.slice(0, at), key.slice(at + 1)];
}
