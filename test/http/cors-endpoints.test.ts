import { execFile } from "node:child_process";
import type http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "@/lib/auth/sessions";
import { createConsoleApi } from "@/lib/api";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import type { Services } from "@/lib/services";
import { userMessage } from "../support/agui-client";
import { rawRequest, type RawResponse } from "../support/raw-http";
import { tempDir, testServices } from "../support/services";

// The AG-UI, MCP and A2A endpoints over a real socket on 127.0.0.1, as a page on another origin
// would call them: a preflight first (OPTIONS), then the request with its Origin and a bearer token.

const LISTED = "https://app.example.com";
/** An origin that only the token "own" lists. */
const OWN = "http://127.0.0.1:5173";
const EVIL = "https://evil.example";

const db = path.join(tempDir(), "cors.db");
let services: Services;
let server: http.Server;
let base: string;
let host: string;
let plain: string;
let own: string;
let cookie: string;

beforeAll(async () => {
  services = testServices({ CONSOLE_DB: db, AGENT_STREAM_DELAY_MS: "0", CORS_ORIGINS: LISTED });
  const api = createConsoleApi(services);
  const h = (handler: unknown) => handler as WebHandler;
  server = createNodeServer([
    { method: "GET", path: "/api/agui", handler: h(api.agui.listAgents) },
    { method: "OPTIONS", path: "/api/agui", handler: h(api.agui.preflight) },
    { method: "POST", path: "/api/agui/[agent]", handler: h(api.agui.run) },
    { method: "OPTIONS", path: "/api/agui/[agent]", handler: h(api.agui.preflight) },
    { method: "POST", path: "/api/mcp", handler: h(api.mcp.post) },
    { method: "GET", path: "/api/mcp", handler: h(api.mcp.get) },
    { method: "OPTIONS", path: "/api/mcp", handler: h(api.mcp.preflight) },
    { method: "POST", path: "/api/a2a", handler: h(api.a2a.post) },
    { method: "OPTIONS", path: "/api/a2a", handler: h(api.a2a.preflight) },
  ]);
  base = await listenLocal(server);
  host = new URL(base).host;
  plain = (await services.access.tokens.create("plain", ["agui", "mcp", "a2a"])).token;
  cookie = `${SESSION_COOKIE}=${(await services.sessions.open(plain)).cookie}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  services?.close();
});

const ENDPOINTS = {
  agui: {
    path: "/api/agui/demo",
    headers: { accept: "text/event-stream" },
    body: () =>
      JSON.stringify({
        threadId: `t-${crypto.randomUUID()}`,
        runId: `r-${crypto.randomUUID()}`,
        messages: [userMessage("hello")],
        tools: [],
        context: [],
      }),
    works: (r: RawResponse) => expect(r.body).toContain('"RUN_FINISHED"'),
  },
  mcp: {
    path: "/api/mcp",
    headers: { accept: "application/json, text/event-stream" },
    body: () => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    works: (r: RawResponse) => expect(r.body).toContain('"tools"'),
  },
  a2a: {
    path: "/api/a2a",
    headers: { "a2a-version": "1.0" },
    body: () => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
    works: (r: RawResponse) => expect(r.body).toContain('"result"'),
  },
} as const;

function preflight(endpointPath: string, origin: string): Promise<RawResponse> {
  return rawRequest(`${base}${endpointPath}`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
  });
}

function call(name: keyof typeof ENDPOINTS, headers: Record<string, string>): Promise<RawResponse> {
  const endpoint = ENDPOINTS[name];
  return rawRequest(`${base}${endpoint.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...endpoint.headers, ...headers },
    body: endpoint.body(),
  });
}

const codeOf = (r: RawResponse) => (JSON.parse(r.body) as { error: { code: string } }).error.code;

describe.each(Object.keys(ENDPOINTS) as Array<keyof typeof ENDPOINTS>)("CORS on the %s endpoint", (name) => {
  const endpoint = ENDPOINTS[name];

  it("answers a listed origin's preflight with that origin", async () => {
    const answer = await preflight(endpoint.path, LISTED);
    expect(answer.status).toBe(204);
    expect(answer.headers["access-control-allow-origin"]).toBe(LISTED);
    expect(answer.headers["access-control-allow-methods"]).toContain("POST");
    expect(answer.headers["access-control-allow-headers"]).toContain("authorization");
    expect(answer.headers["access-control-max-age"]).toMatch(/^\d+$/);
    expect(answer.headers.vary).toBe("Origin");
  });

  it("gives an unlisted origin's preflight no CORS header", async () => {
    const answer = await preflight(endpoint.path, EVIL);
    expect(answer.status).toBe(204);
    expect(Object.keys(answer.headers).filter((k) => k.startsWith("access-control-"))).toEqual([]);
  });

  it("serves a listed origin with a bearer token, saying so in Access-Control-Allow-Origin", async () => {
    const answer = await call(name, { origin: LISTED, authorization: `Bearer ${plain}` });
    expect(answer.status).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBe(LISTED);
    expect(answer.headers.vary).toContain("Origin");
    expect(answer.headers["access-control-allow-credentials"]).toBeUndefined();
    endpoint.works(answer);
  });

  it("refuses an unlisted origin 403 origin_not_allowed, without Access-Control-Allow-Origin", async () => {
    const answer = await call(name, { origin: EVIL, authorization: `Bearer ${plain}` });
    expect(answer.status).toBe(403);
    expect(codeOf(answer)).toBe("origin_not_allowed");
    expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("refuses the session cookie and the local operator from another origin, listed or not", async () => {
    const withCookie = await call(name, { origin: LISTED, cookie });
    expect(withCookie.status).toBe(403);
    expect(codeOf(withCookie)).toBe("origin_not_allowed");
    const anonymous = await call(name, { origin: LISTED });
    expect(anonymous.status).toBe(403);
    expect(codeOf(anonymous)).toBe("origin_not_allowed");
    // The same cookie on the console's own page still works.
    const same = await call(name, { origin: `http://${host}`, cookie });
    expect(same.status).toBe(200);
    expect(same.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("per-token origins", () => {
  beforeAll(async () => {
    own = (await services.access.tokens.create("own", ["agui", "mcp", "a2a"], { origins: [OWN] })).token;
  });

  it("let that token's pages in, and no other token's", async () => {
    expect((await preflight("/api/agui/demo", OWN)).headers["access-control-allow-origin"]).toBe(OWN);
    const mine = await call("agui", { origin: OWN, authorization: `Bearer ${own}` });
    expect(mine.status).toBe(200);
    expect(mine.headers["access-control-allow-origin"]).toBe(OWN);
    ENDPOINTS.agui.works(mine);

    const other = await call("agui", { origin: OWN, authorization: `Bearer ${plain}` });
    expect(other.status).toBe(403);
    expect(codeOf(other)).toBe("origin_not_allowed");
  });

  it("stop counting once the token is revoked", async () => {
    const gone = await services.access.tokens.create("gone", ["agui"], { origins: ["http://127.0.0.1:5999"] });
    expect((await preflight("/api/agui", "http://127.0.0.1:5999")).headers["access-control-allow-origin"]).toBe("http://127.0.0.1:5999");
    await services.access.tokens.revoke(gone.info.id);
    expect((await preflight("/api/agui", "http://127.0.0.1:5999")).headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("are given with `npm run token -- create NAME --origins`", { timeout: 30_000 }, async () => {
    const run = promisify(execFile);
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "scripts/token.ts", "create", "widget", "--origins", "http://127.0.0.1:6001/,http://127.0.0.1:6002"],
      { cwd: path.resolve(import.meta.dirname, "../.."), env: { ...process.env, CONSOLE_DB: db, LOG_LEVEL: "silent" } },
    );
    expect(stderr).toContain("pages of http://127.0.0.1:6001, http://127.0.0.1:6002 may use it");
    const token = stdout.trim();
    const answer = await call("agui", { origin: "http://127.0.0.1:6002", authorization: `Bearer ${token}` });
    expect(answer.status).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBe("http://127.0.0.1:6002");

    const refused = await run(process.execPath, ["--import", "tsx", "scripts/token.ts", "create", "bad", "--origins", "*"], {
      cwd: path.resolve(import.meta.dirname, "../.."),
      env: { ...process.env, CONSOLE_DB: db, LOG_LEVEL: "silent" },
    }).catch((error: { code: number; stderr: string }) => error);
    expect((refused as { code: number }).code).toBe(1);
    expect((refused as { stderr: string }).stderr).toContain('"*" is not an origin');
    expect((await services.access.tokens.list()).some((t) => t.name === "bad")).toBe(false);
  });
});

describe("a GET from a listed origin", () => {
  it("reads the agent list with a bearer token and gets Access-Control-Allow-Origin", async () => {
    const answer = await rawRequest(`${base}/api/agui`, { method: "GET", headers: { origin: LISTED, authorization: `Bearer ${plain}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBe(LISTED);
  });

  it("gets the MCP endpoint's 405 readable, and a refusal of the anonymous operator", async () => {
    const notAllowed = await rawRequest(`${base}/api/mcp`, { method: "GET", headers: { origin: LISTED } });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers["access-control-allow-origin"]).toBe(LISTED);
    const anonymous = await rawRequest(`${base}/api/agui`, { method: "GET", headers: { origin: LISTED } });
    expect(anonymous.status).toBe(403);
  });
});
