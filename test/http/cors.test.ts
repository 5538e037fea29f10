import { beforeAll, describe, expect, it } from "vitest";
import { authenticate, type AccessPolicy } from "@/lib/auth/authenticate";
import { SESSION_COOKIE } from "@/lib/auth/sessions";
import { TokenError, TokenStore } from "@/lib/auth/tokens";
import { ConfigError, loadConfig } from "@/lib/config";
import { openDatabase } from "@/lib/db";
import { DomainError } from "@/lib/errors";
import {
  listedOrigin,
  normalizeOrigin,
  parseOriginList,
  preflightAnswer,
  PREFLIGHT_MAX_AGE_S,
  withCorsHeaders,
  type CorsEndpoint,
} from "@/lib/http/cors";

const ENDPOINT: CorsEndpoint = { methods: ["POST"], headers: ["content-type", "authorization"], expose: ["mcp-session-id"] };
const APP = "https://app.example.com";
const listed = (origin: string) => origin === APP || origin === "http://127.0.0.1:5173";

function request(headers: Record<string, string>, method = "POST"): Request {
  return new Request("http://127.0.0.1:3000/api/agui", { method, headers: { host: "127.0.0.1:3000", ...headers } });
}

function preflight(origin: string | undefined): Request {
  return request({ ...(origin !== undefined && { origin }), "access-control-request-method": "POST" }, "OPTIONS");
}

describe("normalizeOrigin", () => {
  it.each([
    ["https://app.example.com", APP],
    ["HTTPS://App.Example.COM", APP],
    ["https://app.example.com/", APP],
    ["https://app.example.com:443", APP],
    ["http://app.example.com:80", "http://app.example.com"],
    ["http://127.0.0.1:5173", "http://127.0.0.1:5173"],
    ["https://app.example.com:8443", "https://app.example.com:8443"],
    ["http://[::1]:5173", "http://[::1]:5173"],
  ])("%s is the origin %s", (given, origin) => {
    expect(normalizeOrigin(given)).toBe(origin);
  });

  it.each([
    "null",
    "*",
    "",
    "app.example.com",
    "ftp://app.example.com",
    "file:///tmp/page.html",
    "https://app.example.com/path",
    "https://app.example.com/?q",
    "https://app.example.com#x",
    "https://user:pw@app.example.com",
    "https://",
  ])("%j is not an origin", (given) => {
    expect(normalizeOrigin(given)).toBeUndefined();
  });
});

describe("parseOriginList", () => {
  it("normalizes, skips empty entries and repeats", () => {
    expect(parseOriginList(" https://App.example.com/ , ,http://127.0.0.1:5173,https://app.example.com:443")).toEqual([
      APP,
      "http://127.0.0.1:5173",
    ]);
  });

  it.each(["*", "null", "https://app.example.com/embed", "app.example.com"])("refuses %j, naming it", (entry) => {
    expect(() => parseOriginList(`${APP},${entry}`)).toThrow(`"${entry}" is not an origin`);
  });
});

describe("CORS_ORIGINS", () => {
  it("is empty by default: CORS is off", () => {
    expect(loadConfig({}).CORS_ORIGINS).toEqual([]);
  });

  it("reads comma-separated origins, normalized", () => {
    expect(loadConfig({ CORS_ORIGINS: "https://APP.example.com/, http://127.0.0.1:5173" }).CORS_ORIGINS).toEqual([
      APP,
      "http://127.0.0.1:5173",
    ]);
  });

  it.each(["*", "https://app.example.com/path", "null"])(
    "CORS_ORIGINS=%j stops start-up with a ConfigError naming the variable",
    (value) => {
      let caught: unknown;
      try {
        loadConfig({ CORS_ORIGINS: value });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).variable).toBe("CORS_ORIGINS");
      expect((caught as ConfigError).message).toMatch(/^CORS_ORIGINS has ".*" is not an origin/);
    },
  );
});

describe("listedOrigin", () => {
  it("is the request's origin when it is listed and foreign", async () => {
    expect(await listedOrigin(request({ origin: APP }), listed)).toBe(APP);
    expect(await listedOrigin(request({ origin: "HTTPS://APP.EXAMPLE.COM" }), listed)).toBe(APP);
    expect(await listedOrigin(request({ origin: "http://127.0.0.1:5173" }), listed)).toBe("http://127.0.0.1:5173");
  });

  it("is undefined without an Origin, for unlisted ones, null, another port, and the console's own", async () => {
    expect(await listedOrigin(request({}), listed)).toBeUndefined();
    expect(await listedOrigin(request({ origin: "https://evil.example" }), listed)).toBeUndefined();
    expect(await listedOrigin(request({ origin: "null" }), () => true)).toBeUndefined();
    expect(await listedOrigin(request({ origin: "http://127.0.0.1:5174" }), listed)).toBeUndefined();
    expect(await listedOrigin(request({ origin: "https://app.example.com/x" }), listed)).toBeUndefined();
    expect(await listedOrigin(request({ origin: "http://127.0.0.1:3000" }), () => true)).toBeUndefined();
  });
});

describe("preflightAnswer", () => {
  it("answers a listed origin's preflight with that origin, the methods, headers and max-age", async () => {
    const answer = await preflightAnswer(preflight(APP), ENDPOINT, listed);
    expect(answer.status).toBe(204);
    expect(Object.fromEntries(answer.headers)).toEqual({
      allow: "POST, OPTIONS",
      vary: "Origin",
      "access-control-allow-origin": APP,
      "access-control-allow-methods": "POST",
      "access-control-allow-headers": "content-type, authorization",
      "access-control-max-age": String(PREFLIGHT_MAX_AGE_S),
    });
  });

  it.each([["https://evil.example"], ["null"], ["http://127.0.0.1:5174"], [undefined]])(
    "gives %j no CORS header at all",
    async (origin) => {
      const answer = await preflightAnswer(preflight(origin), ENDPOINT, listed);
      expect(answer.status).toBe(204);
      expect(Object.fromEntries(answer.headers)).toEqual({ allow: "POST, OPTIONS", vary: "Origin" });
    },
  );

  it("is a plain OPTIONS answer without Access-Control-Request-Method", async () => {
    const answer = await preflightAnswer(request({ origin: APP }, "OPTIONS"), ENDPOINT, listed);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("withCorsHeaders", () => {
  it("adds the origin and the exposed headers for a listed origin, never credentials", () => {
    const answer = withCorsHeaders(Response.json({ ok: true }), APP, ENDPOINT);
    expect(answer.headers.get("access-control-allow-origin")).toBe(APP);
    expect(answer.headers.get("access-control-expose-headers")).toBe("mcp-session-id");
    expect(answer.headers.get("access-control-allow-credentials")).toBeNull();
    expect(answer.headers.get("vary")).toBe("Origin");
  });

  it("adds only Vary: Origin otherwise, keeping an existing Vary", () => {
    const answer = withCorsHeaders(Response.json({}, { headers: { vary: "A2A-Version" } }), undefined, ENDPOINT);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    expect(answer.headers.get("vary")).toBe("A2A-Version, Origin");
    expect(withCorsHeaders(Response.json({}, { headers: { vary: "origin" } }), undefined, ENDPOINT).headers.get("vary")).toBe("origin");
  });

  it("copies a response whose headers cannot change", async () => {
    const fetched = Response.redirect("http://127.0.0.1/x", 302); // immutable headers
    const answer = withCorsHeaders(fetched, APP, ENDPOINT);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe("http://127.0.0.1/x");
    expect(answer.headers.get("access-control-allow-origin")).toBe(APP);
  });
});

describe("tokens with allowed origins", () => {
  function store() {
    const handle = openDatabase(":memory:");
    return new TokenStore(handle.db);
  }

  it("keeps a token's origins normalized and lists them while it is active", async () => {
    const tokens = store();
    const { token, info } = await tokens.create("app", ["agui"], { origins: ["https://App.example.com/", "http://127.0.0.1:5173"] });
    expect(info.origins).toEqual([APP, "http://127.0.0.1:5173"]);
    expect((await tokens.bearer(token))?.origins).toEqual([APP, "http://127.0.0.1:5173"]);
    expect(await tokens.listsOrigin(APP)).toBe(true);
    expect(await tokens.listsOrigin("https://other.example")).toBe(false);
    await tokens.revoke("app");
    expect(await tokens.listsOrigin(APP)).toBe(false);
  });

  it("has no origins unless given", async () => {
    const tokens = store();
    const { token, info } = await tokens.create("plain");
    expect(info.origins).toBeNull();
    expect((await tokens.bearer(token))?.origins).toEqual([]);
  });

  it("refuses a bad origin and writes nothing", async () => {
    const tokens = store();
    await expect(tokens.create("bad", ["agui"], { origins: ["*"] })).rejects.toThrow(TokenError);
    await expect(tokens.create("bad", ["agui"], { origins: ["https://app.example.com/embed"] })).rejects.toThrow(
      /allowed origin .* is not an origin/,
    );
    expect(await tokens.list()).toEqual([]);
  });
});

describe("authenticate across origins", () => {
  const handle = openDatabase(":memory:");
  const tokens = new TokenStore(handle.db);
  let plain: string;
  let own: string;
  beforeAll(async () => {
    plain = (await tokens.create("plain")).token;
    own = (await tokens.create("own", ["agui"], { origins: ["http://127.0.0.1:5173"] })).token;
  });
  const policy: AccessPolicy = { bindHost: "127.0.0.1", allowedHosts: [], tokens, corsOrigins: [APP] };

  async function kindOf(headers: Record<string, string>, method = "POST"): Promise<string> {
    try {
      return (await authenticate(request(headers, method), policy)).id;
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return (error as DomainError).kind;
    }
  }

  it("takes a bearer token from an origin in CORS_ORIGINS, or in the token's own list", async () => {
    expect(await kindOf({ origin: APP, authorization: `Bearer ${plain}` })).toBe("token:plain");
    expect(await kindOf({ origin: "http://127.0.0.1:5173", authorization: `Bearer ${own}` })).toBe("token:own");
    expect(await kindOf({ origin: APP, authorization: `Bearer ${own}` })).toBe("token:own");
  });

  it("refuses a token's own origin for another token, and unlisted or null origins", async () => {
    expect(await kindOf({ origin: "http://127.0.0.1:5173", authorization: `Bearer ${plain}` })).toBe("origin_not_allowed");
    expect(await kindOf({ origin: "https://evil.example", authorization: `Bearer ${plain}` })).toBe("origin_not_allowed");
    expect(await kindOf({ origin: "null", authorization: `Bearer ${plain}` })).toBe("origin_not_allowed");
  });

  it("never takes the local operator or a session cookie from another origin, even to read", async () => {
    expect(await kindOf({ origin: APP }, "GET")).toBe("origin_not_allowed");
    expect(await kindOf({ origin: APP })).toBe("origin_not_allowed");
    expect(await kindOf({ origin: APP, cookie: `${SESSION_COOKIE}=x`, authorization: `Bearer ${plain}` })).toBe("origin_not_allowed");
  });

  it("keeps the same-origin rules: the console's own pages and clients without an Origin", async () => {
    expect(await kindOf({ origin: "http://127.0.0.1:3000" })).toBe("local");
    expect(await kindOf({}, "GET")).toBe("local");
    expect(await kindOf({ authorization: `Bearer ${plain}` })).toBe("token:plain");
    expect(await kindOf({ "sec-fetch-site": "cross-site" })).toBe("origin_not_allowed");
  });
});
