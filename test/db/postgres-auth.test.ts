// API tokens and operator sessions over both dialects: the same behaviour tests run on SQLite
// (TokenRows and SessionRows on a temporary file) and on PostgreSQL (PgTokenRows and PgSessionRows
// on this file's own database), then, on PostgreSQL, two connection pools standing for two console
// instances: a token name is created once whoever creates it at the same moment, and a session
// opened on one instance holds, and ends, on the other.
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { SESSION_TTL_MS, SessionStore } from "@/lib/auth/sessions";
import { TokenError, TokenStore } from "@/lib/auth/tokens";
import type { DatabaseHandle } from "@/lib/db";
import { PgSessionRows } from "@/lib/db/postgres/sessions";
import { PgTokenRows } from "@/lib/db/postgres/tokens";
import { SessionRows, type SessionRowStore } from "@/lib/db/sessions";
import { TokenRows, type TokenRowStore } from "@/lib/db/tokens";
import { DomainError } from "@/lib/errors";
import { freshDatabase } from "../support/database";
import { postgresDatabase, postgresPool } from "../support/postgres";

const ADMIN_TOKEN = "admin-secret-of-this-test";

const database = postgresDatabase();
const pg = postgresPool(database);

let sqliteHandle: DatabaseHandle | undefined;
afterAll(() => sqliteHandle?.close());

/** The rows of one dialect on an empty database. */
type Rows = { tokens: TokenRowStore; sessions: SessionRowStore };

const dialects: Array<[string, () => Promise<Rows>]> = [
  [
    "SQLite",
    async () => {
      sqliteHandle?.close();
      sqliteHandle = freshDatabase();
      return { tokens: new TokenRows(sqliteHandle.db), sessions: new SessionRows(sqliteHandle.db) };
    },
  ],
  [
    "PostgreSQL",
    async () => {
      await pg.pool.query("truncate operator_sessions, api_tokens");
      return { tokens: new PgTokenRows(pg.db), sessions: new PgSessionRows(pg.db) };
    },
  ],
];

describe.each(dialects)("tokens on %s", (_name, fresh) => {
  let rows: Rows;
  let tokens: TokenStore;
  beforeEach(async () => {
    rows = await fresh();
    tokens = new TokenStore(rows.tokens);
  });

  it("creates a token shown once, verifies it as a bearer, and lists it without the secret", async () => {
    const { token, info } = await tokens.create("ci-bot", ["agui", "tools"]);
    expect(token).toMatch(/^aguic_[A-Za-z0-9_-]{43}$/);
    expect(info).toMatchObject({ name: "ci-bot", scopes: ["agui", "tools"], origins: null, expiresAt: null, agent: null, revokedAt: null });
    expect(await tokens.verify(token)).toMatchObject({ id: "token:ci-bot", scopes: ["agui", "tools"] });
    expect(await tokens.bearer(token)).toMatchObject({ principal: { id: "token:ci-bot" }, origins: [] });
    expect(await tokens.verifyId(info.id)).toMatchObject({ id: "token:ci-bot" });
    expect(await tokens.idOf(token)).toBe(info.id);
    expect(await tokens.verify(`${token.slice(0, -1)}x`)).toBeUndefined();
    expect(await tokens.verify("not-a-token")).toBeUndefined();
    const listed = await tokens.list();
    expect(listed.map((t) => t.name)).toEqual(["ci-bot"]);
    expect(JSON.stringify(listed)).not.toContain(token);
  });

  it("refuses a second active token of one name, bad names and scopes, and writes nothing then", async () => {
    await tokens.create("twice");
    await expect(tokens.create("twice")).rejects.toThrow(new TokenError('An active token named "twice" exists already; revoke it first'));
    await expect(tokens.create("no spaces")).rejects.toThrow(TokenError);
    await expect(tokens.create("ok", ["root"])).rejects.toThrow(/Unknown scope root/);
    expect((await tokens.list()).map((t) => t.name)).toEqual(["twice"]);
  });

  it("revokes by id or name once; a revoked token stops working and its name is free again", async () => {
    const first = await tokens.create("rotating");
    expect(await tokens.revoke(first.info.id)).toBe(1);
    expect(await tokens.revoke(first.info.id)).toBe(0);
    expect(await tokens.verify(first.token)).toBeUndefined();
    expect(await tokens.verifyId(first.info.id)).toBeUndefined();
    expect(await tokens.idOf(first.token)).toBeUndefined();
    const second = await tokens.create("rotating");
    expect(await tokens.verify(second.token)).toBeDefined();
    expect(await tokens.revoke("rotating")).toBe(1);
    expect(await tokens.revoke("rotating")).toBe(0);
    expect((await tokens.list()).every((t) => t.revokedAt !== null)).toBe(true);
  });

  it("ends a token at its expiry", async () => {
    const live = await tokens.create("live", ["agui"], { expiresAt: Date.now() + 60_000 });
    const ended = await tokens.create("ended", ["agui"], { expiresAt: Date.now() - 1 });
    expect(await tokens.verify(live.token)).toBeDefined();
    expect(await tokens.verify(ended.token)).toBeUndefined();
    expect(await tokens.verifyId(ended.info.id)).toBeUndefined();
  });

  it("mints embed tokens for one agent, scope agui, for a bounded time", async () => {
    const before = Date.now();
    const { token, info } = await tokens.createEmbed("demo", { origins: ["https://shop.example"], ttlMs: 120_000 });
    expect(info.name).toMatch(/^embed-[0-9a-f]{12}$/);
    expect(info).toMatchObject({ scopes: ["agui"], agent: "demo", origins: ["https://shop.example"] });
    expect(info.expiresAt).toBeGreaterThanOrEqual(before + 120_000);
    expect(await tokens.verify(token)).toMatchObject({ scopes: ["agui"], role: "viewer", agent: "demo" });
    await expect(tokens.createEmbed("demo", { ttlMs: 1_000 })).rejects.toThrow(/1 minute to 24 hours/);
    await expect(tokens.createEmbed("")).rejects.toThrow(TokenError);
  });

  it("lists an origin while some active, unexpired token allows it", async () => {
    const { info } = await tokens.create("app", ["agui"], { origins: ["https://App.example.com/"] });
    await tokens.create("old", ["agui"], { origins: ["https://old.example"], expiresAt: Date.now() - 1 });
    expect(await tokens.listsOrigin("https://app.example.com")).toBe(true);
    expect(await tokens.listsOrigin("https://old.example")).toBe(false);
    expect(await tokens.listsOrigin("https://other.example")).toBe(false);
    await tokens.revoke(info.id);
    expect(await tokens.listsOrigin("https://app.example.com")).toBe(false);
  });

  it("notes a token's use at most once a minute, and a failed note does not fail the request", async () => {
    const touches: string[] = [];
    const counting: TokenRowStore = Object.assign(Object.create(rows.tokens) as TokenRowStore, {
      touch: async (id: string, now: number) => {
        touches.push(id);
        await rows.tokens.touch(id, now);
      },
    });
    const store = new TokenStore(counting);
    const { token, info } = await store.create("used");
    await store.verify(token);
    await vi.waitFor(async () => expect((await store.list())[0]?.lastUsedAt).toEqual(expect.any(Number)));
    await store.verify(token);
    await store.verifyId(info.id);
    expect(touches).toEqual([info.id]);

    const heard: unknown[] = [];
    const failing: TokenRowStore = Object.assign(Object.create(rows.tokens) as TokenRowStore, {
      touch: () => Promise.reject(new Error("the disk is full")),
    });
    const unnoted = new TokenStore(failing, { onTouchError: (error) => heard.push(error) });
    const other = await unnoted.create("unnoted");
    expect(await unnoted.verify(other.token)).toMatchObject({ id: "token:unnoted" });
    await vi.waitFor(() => expect(heard).toEqual([new Error("the disk is full")]));
  });
});

describe.each(dialects)("sessions on %s", (_name, fresh) => {
  let rows: Rows;
  let tokens: TokenStore;
  let clock: number;
  const sessionsOf = (store: Rows, adminToken: string | undefined) =>
    new SessionStore(store.sessions, new TokenStore(store.tokens), adminToken, () => clock);
  beforeEach(async () => {
    rows = await fresh();
    tokens = new TokenStore(rows.tokens);
    clock = Date.now();
  });

  it("opens a session for a token, verifies its cookie, and closes it once", async () => {
    const sessions = sessionsOf(rows, ADMIN_TOKEN);
    const { token } = await tokens.create("operator", ["agui", "approvals"]);
    const opened = await sessions.open(token);
    expect(opened).toMatchObject({ principal: { id: "token:operator", role: "operator" }, expiresAt: clock + SESSION_TTL_MS });
    expect(await sessions.verify(opened.cookie)).toMatchObject({ id: "token:operator", scopes: ["agui", "approvals"] });
    expect(await sessions.verify("another-cookie")).toBeUndefined();
    expect(await sessions.verify(undefined)).toBeUndefined();
    expect(await sessions.close(opened.cookie)).toBe(true);
    expect(await sessions.close(opened.cookie)).toBe(false);
    expect(await sessions.verify(opened.cookie)).toBeUndefined();
  });

  it("refuses an unknown or revoked token, and ends a session when its token is revoked", async () => {
    const sessions = sessionsOf(rows, ADMIN_TOKEN);
    const { token } = await tokens.create("leaving");
    const opened = await sessions.open(token);
    await expect(sessions.open("aguic_unknown")).rejects.toThrow(new DomainError("unauthenticated", "That token is unknown or revoked"));
    await tokens.revoke("leaving");
    expect(await sessions.verify(opened.cookie)).toBeUndefined();
    await expect(sessions.open(token)).rejects.toThrow(DomainError);
  });

  it("ends a session at its expiry, and a later sign-in sweeps the expired rows", async () => {
    const sessions = sessionsOf(rows, ADMIN_TOKEN);
    const { token } = await tokens.create("night-shift");
    const first = await sessions.open(token);
    clock += SESSION_TTL_MS;
    expect(await sessions.verify(first.cookie)).toBeUndefined();
    expect(await rows.sessions.sweep(clock - SESSION_TTL_MS)).toBe(0);
    const second = await sessions.open(token);
    expect(await sessions.verify(second.cookie)).toMatchObject({ id: "token:night-shift" });
    // The first row went with the second sign-in: nothing is left to sweep at its expiry.
    expect(await rows.sessions.sweep(clock)).toBe(0);
    expect(await rows.sessions.sweep(clock + SESSION_TTL_MS)).toBe(1);
  });

  it("holds an admin session for the ADMIN_TOKEN it was opened with only", async () => {
    const opened = await sessionsOf(rows, ADMIN_TOKEN).open(ADMIN_TOKEN);
    expect(opened.principal).toMatchObject({ role: "admin" });
    expect(await sessionsOf(rows, ADMIN_TOKEN).verify(opened.cookie)).toMatchObject({ role: "admin" });
    expect(await sessionsOf(rows, "a-changed-admin-token").verify(opened.cookie)).toBeUndefined();
    expect(await sessionsOf(rows, undefined).verify(opened.cookie)).toBeUndefined();
  });
});

describe("tokens and sessions on PostgreSQL across two instances", () => {
  const other = postgresPool(database);
  beforeEach(async () => {
    await pg.pool.query("truncate operator_sessions, api_tokens");
  });

  it("creates a name once when two instances create it 20 times at once, and revokes it once", async () => {
    const a = new TokenStore(new PgTokenRows(pg.db));
    const b = new TokenStore(new PgTokenRows(other.db));
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).create("deploy-bot")));
    const made = outcomes.filter((outcome) => outcome.status === "fulfilled");
    expect(made).toHaveLength(1);
    for (const outcome of outcomes)
      if (outcome.status === "rejected")
        expect(outcome.reason).toEqual(new TokenError('An active token named "deploy-bot" exists already; revoke it first'));
    expect(await b.list()).toHaveLength(1);
    expect(await b.verify(made[0]!.value.token)).toMatchObject({ id: "token:deploy-bot" });

    const revoked = await Promise.all([a.revoke("deploy-bot"), b.revoke("deploy-bot")]);
    expect(revoked.sort()).toEqual([0, 1]);
    expect(await a.verify(made[0]!.value.token)).toBeUndefined();
  });

  it("verifies on one instance a session opened on the other, and ends it on both when closed", async () => {
    const tokensA = new TokenStore(new PgTokenRows(pg.db));
    const sessionsA = new SessionStore(new PgSessionRows(pg.db), tokensA, ADMIN_TOKEN);
    const sessionsB = new SessionStore(new PgSessionRows(other.db), new TokenStore(new PgTokenRows(other.db)), ADMIN_TOKEN);
    const { token } = await tokensA.create("operator", ["agui", "approvals"]);
    const opened = await sessionsA.open(token);
    expect(await sessionsB.verify(opened.cookie)).toMatchObject({ id: "token:operator", role: "operator" });
    const admin = await sessionsA.open(ADMIN_TOKEN);
    expect(await sessionsB.verify(admin.cookie)).toMatchObject({ role: "admin" });
    expect(await sessionsB.close(opened.cookie)).toBe(true);
    expect(await sessionsA.verify(opened.cookie)).toBeUndefined();
  });
});
