import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleApi, type ConsoleApi } from "@/lib/api";
import { tokensApi } from "@/lib/api/tokens";
import { protector } from "@/lib/http/authorize";
import type { CreatedToken, TokenView } from "@/lib/api/contracts";
import { createLogger } from "@/lib/log";
import { createServices, type SqliteServices } from "@/lib/services";
import { loadConfig } from "@/lib/config";
import { countRows } from "../support/database";
import { tempDir } from "../support/services";

const BASE = "http://127.0.0.1:3000";

let services: SqliteServices;
let tokens: ConsoleApi["tokens"];
let admin: string;
let operator: string;
const logged: string[] = [];

beforeAll(async () => {
  services = createServices(loadConfig({ CONSOLE_DB: `${tempDir()}/console.db`, LOG_LEVEL: "debug" }), {
    logger: createLogger("debug", (line) => logged.push(line)),
  });
  ({ tokens } = consoleApi(services));
  admin = (await services.tokens.create("admin", ["admin"])).token;
  operator = (await services.tokens.create("operator", ["agui", "approvals", "tools"])).token;
});
afterAll(() => services.close());

function request(method: string, path: string, token: string | undefined, body?: unknown, raw?: string): Request {
  return new Request(`${BASE}${path}`, {
    method,
    headers: {
      host: "127.0.0.1:3000",
      ...(token && { authorization: `Bearer ${token}` }),
      ...((body !== undefined || raw !== undefined) && { "content-type": "application/json" }),
    },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
}

const create = (body: unknown, token: string | undefined = admin, raw?: string) =>
  tokens.create(request("POST", "/api/tokens", token, body, raw));
const list = async (token = admin) => {
  const response = await tokens.list(request("GET", "/api/tokens", token));
  expect(response.status).toBe(200);
  return ((await response.json()) as { tokens: TokenView[] }).tokens;
};
const revoke = (id: string, token = admin) =>
  tokens.revoke(request("DELETE", `/api/tokens/${id}`, token), { params: Promise.resolve({ id }) });
const tokenRows = () => countRows(services.database, "api_tokens");

describe("/api/tokens", () => {
  it("POST creates a token that works at once, answers its secret once, and the list never carries it", async () => {
    const response = await create({ name: "shop-embed", scopes: ["agui"] });
    expect(response.status).toBe(201);
    const created = (await response.json()) as CreatedToken;
    expect(created).toMatchObject({ name: "shop-embed", scopes: ["agui"], lastUsedAt: null, revokedAt: null });
    expect(created.token).toMatch(/^aguic_[A-Za-z0-9_-]{43}$/);
    // The secret stands for a principal with exactly the scopes asked for.
    expect(await services.tokens.verify(created.token)).toMatchObject({ id: "token:shop-embed", scopes: ["agui"], role: "viewer" });

    const listed = await tokens.list(request("GET", "/api/tokens", admin));
    const text = await listed.text();
    expect(text).not.toContain(created.token);
    expect(text).not.toContain(created.token.slice(6, 20));
    const row = (JSON.parse(text) as { tokens: TokenView[] }).tokens.find((t) => t.id === created.id);
    expect(row).toEqual({
      id: created.id,
      name: "shop-embed",
      scopes: ["agui"],
      agent: null,
      expiresAt: null,
      createdAt: created.createdAt,
      lastUsedAt: expect.any(Number),
      revokedAt: null,
    });
    expect(Object.keys(row!).sort()).toEqual(["agent", "createdAt", "expiresAt", "id", "lastUsedAt", "name", "revokedAt", "scopes"]);
    // Nor does the database or the log hold it in clear.
    const stored = services.database.sqlite.prepare("select * from api_tokens where id = ?").get(created.id);
    expect(JSON.stringify(stored)).not.toContain(created.token);
    expect(logged.join("\n")).not.toContain(created.token);
    expect(logged.some((line) => line.includes("token created") && line.includes("shop-embed"))).toBe(true);
  });

  it("refuses bad input with 400 or 422 and the issues, writing nothing", async () => {
    const before = tokenRows();
    const cases: Array<[unknown, string | undefined, number, string]> = [
      [undefined, "{not json", 400, "invalid_json"],
      [{ name: "has space", scopes: ["agui"] }, undefined, 422, "invalid_body"],
      [{ name: "x".repeat(65), scopes: ["agui"] }, undefined, 422, "invalid_body"],
      [{ name: "ok", scopes: [] }, undefined, 422, "invalid_body"],
      [{ name: "ok", scopes: ["root"] }, undefined, 422, "invalid_body"],
      [{ name: "ok", scopes: ["agui", "agui"] }, undefined, 422, "invalid_body"],
      [{ name: "ok", scopes: "agui" }, undefined, 422, "invalid_body"],
      [{ name: "ok", scopes: ["agui"], token: "aguic_mine" }, undefined, 422, "invalid_body"],
      // A name an active token holds already.
      [{ name: "operator", scopes: ["agui"] }, undefined, 422, "invalid_token_request"],
    ];
    for (const [body, raw, status, code] of cases) {
      const response = await create(body, admin, raw);
      expect(response.status, JSON.stringify(body ?? raw)).toBe(status);
      expect(await response.json()).toMatchObject({ error: { code } });
    }
    const unknown = (await (await create({ name: "ok", scopes: ["root"] })).json()) as { error: { issues: Array<{ path: string }> } };
    expect(unknown.error.issues[0]!.path).toBe("/scopes/0");
    const tooBig = await create(undefined, admin, JSON.stringify({ name: "big", scopes: ["agui"], pad: "x".repeat(8_000) }));
    expect(tooBig.status).toBe(413);
    expect(tokenRows()).toBe(before);
  });

  it("is for admins only: 403 for an operator, and nothing written", async () => {
    const before = tokenRows();
    for (const response of [
      await create({ name: "sneaky", scopes: ["admin"] }, operator),
      await tokens.list(request("GET", "/api/tokens", operator)),
      await revoke((await services.tokens.list())[0]!.id, operator),
    ]) {
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: "forbidden" } });
    }
    expect(tokenRows()).toBe(before);
    expect((await services.tokens.list()).every((t) => !t.revokedAt)).toBe(true);
  });

  it("a taken name is 422 even when the store's error class is another bundle layer's (as in a Next build)", async () => {
    // In `next build` output the services can be built by the page layer, whose DomainError is not
    // the route layer's: an error the store throws would then be answered 500. This store's errors
    // are plain Errors, as a foreign class looks to the route.
    const foreign = new Proxy(services.tokens, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          try {
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          } catch (error) {
            throw new Error((error as Error).message);
          }
        };
      },
    });
    const api = tokensApi(
      { tokens: foreign, logger: services.logger, agents: services.agents },
      protector(services.access, services.logger),
    );
    const before = tokenRows();
    const response = await api.create(request("POST", "/api/tokens", admin, { name: "operator", scopes: ["agui"] }));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_token_request", issues: [{ path: "/name" }] } });
    expect(tokenRows()).toBe(before);
  });

  it("DELETE revokes by id: the token stops working, the list says when; an unknown or revoked id is 404", async () => {
    const created = (await (await create({ name: "short-lived", scopes: ["agui", "approvals"] })).json()) as CreatedToken;
    expect(await services.tokens.verify(created.token)).toBeDefined();

    const response = await revoke(created.id);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ revoked: { id: created.id, name: "short-lived", revokedAt: expect.any(Number) } });
    expect(await services.tokens.verify(created.token)).toBeUndefined();
    expect((await list()).find((t) => t.id === created.id)?.revokedAt).toEqual(expect.any(Number));

    for (const id of [created.id, "no-such-id", "operator"]) {
      const missing = await revoke(id);
      expect(missing.status, id).toBe(404);
      expect(await missing.json()).toMatchObject({ error: { code: "token_not_found" } });
    }
    // A name is not an id: the operator's token (revocable by name in `npm run token`) is untouched.
    expect(await services.tokens.verify(operator)).toBeDefined();
    // Its name is free again.
    expect((await create({ name: "short-lived", scopes: ["agui"] })).status).toBe(201);
  });
});
