import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import type { Services } from "@/lib/services";
import { testServices } from "../support/services";

const ADMIN_TOKEN = "an-admin-secret-of-at-least-32-characters";
const HOST = "console.example";
const ORIGIN = `http://${HOST}`;

/** A request as a browser on another machine sends it to a console listening on every address. */
function request(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Request {
  return new Request(`${ORIGIN}${path}`, {
    method,
    headers: { host: HOST, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
const cookieOf = (response: Response) => /console_session=([^;]*)/.exec(response.headers.get("set-cookie") ?? "")?.[1];
const codeOf = async (response: Response) => ({
  status: response.status,
  code: ((await response.json()) as { error?: { code: string } }).error?.code,
});
const ctx = (id: string) => ({ params: Promise.resolve({ id }) });

describe("signing in off loopback", () => {
  let services: Services;
  let api: ReturnType<typeof consoleApi>;
  beforeAll(() => {
    services = testServices({ HOST: "0.0.0.0", ALLOWED_HOSTS: HOST, ADMIN_TOKEN });
    api = consoleApi(services);
  });
  afterAll(() => services.close());

  const signIn = (token: string, headers: Record<string, string> = { origin: ORIGIN }) =>
    api.session.signIn(request("POST", "/api/session", headers, { token }));

  it("refuses the pages' API to anyone who has not signed in", async () => {
    expect(await codeOf(await api.threads.listThreads(request("GET", "/api/threads")))).toEqual({ status: 401, code: "unauthenticated" });
    expect(await codeOf(await api.session.get(request("GET", "/api/session")))).toEqual({ status: 401, code: "unauthenticated" });
    // Every 401 says what to send (RFC 9110), not only the MCP endpoint's.
    expect((await api.threads.listThreads(request("GET", "/api/threads"))).headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("gives a token's holder an httpOnly, SameSite=Strict session with the token's role", async () => {
    const { token } = await services.tokens.create("viewer-1", ["agui"]);
    const response = await signIn(token);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: "token:viewer-1", role: "viewer", scopes: ["agui"] });
    const setCookie = response.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Max-Age=28800/);
    expect(setCookie).not.toMatch(/Secure/); // PUBLIC_URL is not https here
    const cookie = `console_session=${cookieOf(response)}`;
    expect((await api.threads.listThreads(request("GET", "/api/threads", { cookie }))).status).toBe(200);
    // The cookie's holder has the token's scopes, no more.
    expect((await api.approvals.list(request("GET", "/api/approvals", { cookie }))).status).toBe(403);
  });

  it("refuses an unknown token and sets no cookie", async () => {
    const response = await signIn("aguic_not-a-token");
    expect(response.status).toBe(401);
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("makes whoever holds ADMIN_TOKEN an admin", async () => {
    const response = await signIn(ADMIN_TOKEN);
    expect(await response.json()).toMatchObject({ id: "admin", role: "admin" });
  });

  it("ends an admin session when ADMIN_TOKEN changes", async () => {
    const cookie = `console_session=${cookieOf(await signIn(ADMIN_TOKEN))}`;
    expect((await api.session.get(request("GET", "/api/session", { cookie }))).status).toBe(200);
    // The same database under a console configured with another admin token.
    const rotated = testServices({
      HOST: "0.0.0.0",
      ALLOWED_HOSTS: HOST,
      ADMIN_TOKEN: `${ADMIN_TOKEN}-rotated`,
      CONSOLE_DB: services.config.CONSOLE_DB,
    });
    try {
      expect((await consoleApi(rotated).session.get(request("GET", "/api/session", { cookie }))).status).toBe(401);
    } finally {
      rotated.close();
    }
  });

  it("accepts a change made with the cookie only from the console's own origin", async () => {
    const { token } = await services.tokens.create("operator-1", ["agui", "approvals"]);
    const cookie = `console_session=${cookieOf(await signIn(token))}`;
    const decide = (headers: Record<string, string>) =>
      api.approvals.decide(
        request("POST", "/api/approvals/apr_none/decision", { cookie, ...headers }, { approved: true }),
        ctx("apr_none"),
      );
    // Authenticated and same origin: the request reaches the approval store (which knows no such approval).
    expect((await decide({ origin: ORIGIN })).status).toBe(404);
    // Another site, another port of the same host, an opaque origin, or no Origin at all: refused first.
    for (const origin of ["http://evil.example", `http://${HOST}:8080`, "null", "file://", `http://sub.${HOST}`])
      expect(await codeOf(await decide({ origin }))).toEqual({ status: 403, code: "origin_not_allowed" });
    expect(await codeOf(await decide({}))).toEqual({ status: 403, code: "origin_not_allowed" });
  });

  it("ends the session at sign-out and when its token is revoked", async () => {
    const { token } = await services.tokens.create("operator-2", ["agui", "approvals"]);
    const first = `console_session=${cookieOf(await signIn(token))}`;
    const out = await api.session.signOut(request("DELETE", "/api/session", { cookie: first, origin: ORIGIN }));
    expect(out.headers.get("set-cookie")).toMatch(/console_session=; Path=\/; Max-Age=0/);
    expect((await api.threads.listThreads(request("GET", "/api/threads", { cookie: first }))).status).toBe(401);

    const second = `console_session=${cookieOf(await signIn(token))}`;
    expect((await api.threads.listThreads(request("GET", "/api/threads", { cookie: second }))).status).toBe(200);
    await services.tokens.revoke("operator-2");
    expect((await api.threads.listThreads(request("GET", "/api/threads", { cookie: second }))).status).toBe(401);
  });

  it("refuses a sign-in posted by another site (it would sign the browser in as the attacker)", async () => {
    const { token } = await services.tokens.create("viewer-2", ["agui"]);
    expect(await codeOf(await signIn(token, { origin: "http://evil.example" }))).toEqual({ status: 403, code: "origin_not_allowed" });
    expect(await codeOf(await signIn(token, { "sec-fetch-site": "cross-site" }))).toEqual({ status: 403, code: "origin_not_allowed" });
  });
});

describe("the local operator on loopback", async () => {
  let services: Services;
  let api: ReturnType<typeof consoleApi>;
  beforeAll(() => {
    services = testServices();
    api = consoleApi(services);
  });
  afterAll(() => services.close());

  const refresh = (headers: Record<string, string>) =>
    api.sources.refresh(
      new Request("http://127.0.0.1:3000/api/sources/src_none/refresh", {
        method: "POST",
        headers: { host: "127.0.0.1:3000", ...headers },
      }),
      ctx("src_none"),
    );

  it("needs no sign-in, but a change from another site's page is refused (a no-cors POST without a body)", async () => {
    expect(await codeOf(await refresh({ origin: "http://evil.example" }))).toEqual({ status: 403, code: "origin_not_allowed" });
    expect(await codeOf(await refresh({ origin: "http://127.0.0.1:3001" }))).toEqual({ status: 403, code: "origin_not_allowed" });
    expect(await codeOf(await refresh({ "sec-fetch-site": "cross-site" }))).toEqual({ status: 403, code: "origin_not_allowed" });
    // The console's own page, and a client that is no browser (curl, SDKs): through to the handler.
    expect((await refresh({ origin: "http://127.0.0.1:3000" })).status).toBe(404);
    expect((await refresh({})).status).toBe(404);
  });

  it("says who the local operator is", async () => {
    const response = await api.session.get(new Request("http://127.0.0.1:3000/api/session", { headers: { host: "127.0.0.1:3000" } }));
    expect(await response.json()).toMatchObject({ id: "local", role: "admin" });
  });
});
