import type http from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createConsoleApi, type ConsoleApi } from "@/lib/api";
import type { CreatedEmbedToken } from "@/lib/api/contracts";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import type { SqliteServices } from "@/lib/services";
import { userMessage } from "../support/agui-client";
import { countRows } from "../support/database";
import { testServices } from "../support/services";

// Embed tokens, the credential of the script-tag widget: minted by an admin for one agent, for a
// while, from some origins; the AG-UI endpoint (over a real socket) refuses them for any other
// agent (403) and once they have expired (401).

const PAGE = "http://127.0.0.2:4555";
let services: SqliteServices;
let api: ConsoleApi;
let server: http.Server;
let base: string;
let admin: string;
let operator: string;

beforeAll(async () => {
  services = testServices({ AGENT_STREAM_DELAY_MS: "0" });
  api = createConsoleApi(services);
  const h = (handler: unknown) => handler as WebHandler;
  server = createNodeServer([
    { method: "POST", path: "/api/agui/[agent]", handler: h(api.agui.run) },
    { method: "OPTIONS", path: "/api/agui/[agent]", handler: h(api.agui.preflight) },
  ]);
  base = await listenLocal(server);
  admin = (await services.tokens.create("admin", ["admin"])).token;
  operator = (await services.tokens.create("operator", ["agui", "approvals", "tools"])).token;
});
afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  services?.close();
});

function mint(body: unknown, token: string | undefined = admin, raw?: string): Promise<Response> {
  return api.tokens.createEmbed(
    new Request("http://127.0.0.1:3000/api/tokens/embed", {
      method: "POST",
      headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
      body: raw ?? JSON.stringify(body),
    }),
  );
}

async function minted(body: unknown): Promise<CreatedEmbedToken> {
  const response = await mint(body);
  expect(response.status).toBe(201);
  return (await response.json()) as CreatedEmbedToken;
}

/** A run of `agent` with `token`, from a page of `origin` when given. */
function run(agent: string, token: string, origin?: string): Promise<Response> {
  return fetch(`${base}/api/agui/${agent}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      authorization: `Bearer ${token}`,
      ...(origin && { origin }),
    },
    body: JSON.stringify({
      threadId: `t-${crypto.randomUUID()}`,
      runId: `r-${crypto.randomUUID()}`,
      messages: [userMessage("hello")],
      tools: [],
      context: [],
    }),
  });
}

const tokenRows = () => countRows(services.database, "api_tokens");

describe("POST /api/tokens/embed", () => {
  it("mints an agui-only token bound to one agent, with an hour's life by default and the origins given", async () => {
    const before = Date.now();
    const created = await minted({ agent: "demo", origins: [`${PAGE}/`] });
    expect(created).toMatchObject({ agent: "demo", scopes: ["agui"], origins: [PAGE], revokedAt: null });
    expect(created.name).toMatch(/^embed-[0-9a-f]{12}$/);
    expect(created.token).toMatch(/^aguic_/);
    expect(created.expiresAt).toBeGreaterThanOrEqual(before + 60 * 60_000);
    expect(created.expiresAt).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
    expect(await services.tokens.verify(created.token)).toMatchObject({ scopes: ["agui"], role: "viewer", agent: "demo" });
    // The token list says whose agent it serves and when it ends (the Settings page shows both).
    const listed = await api.tokens.list(
      new Request("http://127.0.0.1:3000/api/tokens", { headers: { host: "127.0.0.1:3000", authorization: `Bearer ${admin}` } }),
    );
    const { tokens } = (await listed.json()) as { tokens: Array<Record<string, unknown>> };
    expect(tokens.find((t) => t.id === created.id)).toMatchObject({ agent: "demo", expiresAt: created.expiresAt, scopes: ["agui"] });

    // It runs its agent, from the page it lists too (CORS), and ends the run.
    const response = await run("demo", created.token, PAGE);
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(await response.text()).toContain('"RUN_FINISHED"');
  });

  it("is refused for any other agent (403), and for the default agent's path when bound elsewhere", async () => {
    const created = await minted({ agent: "plain-chat" });
    const other = await run("demo", created.token);
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({ error: { code: "forbidden", message: expect.stringContaining('"plain-chat"') } });
    expect((await run("plain-chat", created.token)).status).toBe(200);
    // An operator's token is not bound: any agent.
    expect((await run("plain-chat", operator)).status).toBe(200);
  });

  it("lists only its own agent, as the default; an operator's token lists them all", async () => {
    const created = await minted({ agent: "plain-chat" });
    const list = (token: string) =>
      api.agui.listAgents(
        new Request("http://127.0.0.1:3000/api/agui", { headers: { host: "127.0.0.1:3000", authorization: `Bearer ${token}` } }),
      );
    const bound = (await (await list(created.token)).json()) as { default: string; agents: { name: string }[] };
    expect(bound).toEqual({ default: "plain-chat", agents: [expect.objectContaining({ name: "plain-chat" })] });
    const all = (await (await list(operator)).json()) as { default: string; agents: { name: string }[] };
    expect(all.default).toBe("demo");
    expect(all.agents.map((agent) => agent.name)).toEqual(expect.arrayContaining(["demo", "plain-chat"]));
  });

  it("is refused once expired (401), and its origins stop counting for preflights", async () => {
    const created = await minted({ agent: "demo", origins: ["http://127.0.0.3:4555"], ttlSeconds: 60 });
    expect(created.expiresAt - created.createdAt).toBeGreaterThan(59_000);
    expect(created.expiresAt - created.createdAt).toBeLessThanOrEqual(60_000);
    expect(await services.tokens.listsOrigin("http://127.0.0.3:4555")).toBe(true);
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + 61_000);
    const response = await run("demo", created.token);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: "unauthenticated", message: expect.stringContaining("expired") } });
    expect(await services.tokens.listsOrigin("http://127.0.0.3:4555")).toBe(false);
    vi.restoreAllMocks();
    expect((await run("demo", created.token)).status).toBe(200);
  });

  it("is for admins only: an operator's token gets 403, no token 401, and nothing is written", async () => {
    const before = tokenRows();
    expect((await mint({ agent: "demo" }, operator)).status).toBe(403);
    expect((await mint({ agent: "demo" }, "aguic_nope")).status).toBe(401);
    expect(tokenRows()).toBe(before);
  });

  it.each([
    ["an unknown agent", { agent: "nobody" }, 422, "invalid_token_request"],
    ["no agent", {}, 422, "invalid_body"],
    ["a lifetime over a day", { agent: "demo", ttlSeconds: 24 * 3600 + 1 }, 422, "invalid_body"],
    ["a lifetime under a minute", { agent: "demo", ttlSeconds: 59 }, 422, "invalid_body"],
    ["a bad origin", { agent: "demo", origins: ["javascript:alert(1)"] }, 422, "invalid_token_request"],
    ["scopes (always agui only)", { agent: "demo", scopes: ["admin"] }, 422, "invalid_body"],
  ])("refuses %s and writes nothing", async (_label, body, status, code) => {
    const before = tokenRows();
    const response = await mint(body);
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    expect(tokenRows()).toBe(before);
  });

  it("refuses bad JSON with 400 and writes nothing", async () => {
    const before = tokenRows();
    const response = await mint(undefined, admin, "{nope");
    expect(response.status).toBe(400);
    expect(tokenRows()).toBe(before);
  });
});
