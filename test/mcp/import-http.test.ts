import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import type { SourceImportAnswer } from "@/lib/api/contracts";
import type { McpTestResult } from "@/lib/integrations/mcp/import-mcp";
import type { SqliteServices } from "@/lib/services";
import { countRows } from "../support/database";
import { EverythingHttp, eventually, FIXTURE, stdioTarget } from "../support/mcp-servers";
import { testServices } from "../support/services";
import { valueOf } from "../support/outcomes";

// The everything server over Streamable HTTP on 127.0.0.1, imported through the REST handlers.

let everything: EverythingHttp;
let services: SqliteServices;
/** The same database with no OUTBOUND_ALLOW: loopback is refused. */
let strict: SqliteServices;

beforeAll(async () => {
  everything = await EverythingHttp.start();
  services = testServices({ OUTBOUND_ALLOW: "127.0.0.1/32" });
  strict = testServices();
});
afterAll(async () => {
  await services.mcp.closeAll();
  services.close();
  strict.close();
  await everything.stop();
});

const send = (pathname: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(`http://127.0.0.1:3000${pathname}`, {
    method: "POST",
    headers: { host: "127.0.0.1:3000", "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string; message: string; issues?: Array<{ path: string }> } }).error,
});

describe("an MCP server over Streamable HTTP", () => {
  let sourceId: string;
  const body = () => ({ target: { transport: "http", url: everything.url }, bearer: "http-secret-token", options: { prefix: "web_" } });

  it("POST /api/sources/mcp/test connects, lists its tools and registers nothing", async () => {
    const tools = services.registry.count();
    const response = await consoleApi(services).sources.testMcp(send("/api/sources/mcp/test", body()));
    expect(response.status).toBe(200);
    const result = (await response.json()) as McpTestResult;
    expect(result.server).toMatchObject({ name: "mcp-servers/everything", title: "Everything Reference Server" });
    expect(result.location).toBe(everything.url);
    expect(result.tools.find((tool) => tool.remoteName === "echo")).toEqual({
      remoteName: "echo",
      toolName: "web_echo",
      title: "Echo Tool",
      description: "Echoes back the input string",
      effects: "read",
      confirm: false,
    });
    expect(services.registry.count()).toBe(tools);
  });

  it("POST /api/sources/mcp imports its tools, which run through the executor", async () => {
    const response = await consoleApi(services).sources.importMcpServer(send("/api/sources/mcp", body()));
    expect(response.status).toBe(201);
    const answer = (await response.json()) as SourceImportAnswer;
    sourceId = answer.source.id;
    expect(answer.source).toMatchObject({ kind: "mcp", location: everything.url, auth: { kind: "bearer" }, hasSecret: true, status: "ok" });
    expect(answer.tools.length).toBe(12);
    expect(JSON.stringify(answer)).not.toContain("http-secret-token");
    const list = await consoleApi(services).sources.list(
      new Request("http://127.0.0.1:3000/api/sources", { headers: { host: "127.0.0.1:3000" } }),
    );
    expect(await list.text()).not.toContain("http-secret-token");

    expect(valueOf(await services.executor.call("web_echo", { message: "over http" }))).toBe("Echo: over http");
    expect(valueOf(await services.executor.call("web_get-sum", { a: 20, b: 22 }))).toBe("The sum of 20 and 22 is 42.");
    expect(valueOf(await services.executor.call("web_get-structured-content", { location: "Chicago" }))).toMatchObject({
      conditions: expect.any(String),
    });
  });

  it("reconnects after the server restarts; meanwhile calls fail as tool errors and the source says why", async () => {
    await everything.stop();
    const down = await services.executor.call("web_echo", { message: "anyone?" });
    expect(down).toMatchObject({ ok: false, error: { kind: "tool_error", message: expect.stringContaining("cannot be reached") } });
    expect(await services.sources.get(sourceId)).toMatchObject({ status: "error", statusMessage: expect.any(String) });
    await everything.start();
    // The restarted server knows nothing of the old session: the console opens a new one.
    expect(valueOf(await services.executor.call("web_echo", { message: "back" }))).toBe("Echo: back");
    expect(await services.sources.get(sourceId)).toMatchObject({ status: "ok", statusMessage: null });
  });

  it("when the server goes away and comes back, reconnects by itself with no call made, and reads its tools again", async () => {
    // A connection with its event stream open, as a console has once it started.
    expect(valueOf(await services.executor.call("web_echo", { message: "up" }))).toBe("Echo: up");
    const before = (await services.sources.get(sourceId))!.lastRefreshAt;
    await everything.stop();
    await eventually(async () => (await services.sources.get(sourceId))?.status === "error");
    expect((await services.sources.get(sourceId))!.statusMessage).toContain("event stream ended");
    await everything.start();
    await eventually(() => services.mcp.status(sourceId)?.state === "connected", 15_000);
    await eventually(async () => {
      const source = await services.sources.get(sourceId);
      return source?.status === "ok" && (source.lastRefreshAt ?? 0) > (before ?? 0);
    }, 15_000);
    expect(services.registry.get("web_echo")).toBeDefined();
  });

  it("POST /api/sources/[id]/refresh reads the tools again, keeping operators' settings", async () => {
    await services.registry.update("web_echo", { enabled: false });
    const response = await consoleApi(services).sources.refresh(send(`/api/sources/${sourceId}/refresh`, {}), {
      params: Promise.resolve({ id: sourceId }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as SourceImportAnswer).tools).toHaveLength(12);
    expect(services.registry.get("web_echo")).toMatchObject({ enabled: false });
  });

  it("is refused when the outbound guard refuses its address, and nothing is written", async () => {
    const before = countRows(strict.database, "sources");
    const refused = await consoleApi(strict).sources.importMcpServer(send("/api/sources/mcp", body()));
    expect(await errorOf(refused)).toMatchObject({
      status: 422,
      code: "invalid_options",
      message: expect.stringContaining("cannot be used"),
    });
    expect(countRows(strict.database, "sources")).toBe(before);
  });
});

describe("POST /api/sources/mcp input", () => {
  it("lets only an admin add a stdio server (403 before anything runs), and only an admin widen the guard", async () => {
    const { token } = await services.tokens.create("tools-only", ["tools"]);
    const before = countRows(services.database, "sources");
    const headers = { authorization: `Bearer ${token}` };
    const stdio = await consoleApi(services).sources.importMcpServer(send("/api/sources/mcp", { target: stdioTarget(FIXTURE) }, headers));
    expect(await errorOf(stdio)).toMatchObject({ status: 403, code: "forbidden", message: expect.stringContaining("admin") });
    const tested = await consoleApi(services).sources.testMcp(send("/api/sources/mcp/test", { target: stdioTarget(FIXTURE) }, headers));
    expect(tested.status).toBe(403);
    const allow = await consoleApi(services).sources.importMcpServer(
      send("/api/sources/mcp", { target: { transport: "http", url: everything.url }, options: { allow: ["127.0.0.1/32"] } }, headers),
    );
    expect(allow.status).toBe(403);
    expect(countRows(services.database, "sources")).toBe(before);
  });

  it("answers 422 with issues for bodies it cannot use", async () => {
    const cases: Array<[unknown, string]> = [
      [{ target: { transport: "ftp", url: "x" } }, "/target/transport"],
      [{ target: { transport: "http" } }, "/target/url"],
      [{ target: { transport: "http", url: everything.url, headers: { Authorization: "Bearer shown" } } }, "/target/headers"],
      [{ target: { transport: "http", url: everything.url, headers: { "X-A": "a\r\nInjected: 1" } } }, "/target/headers/X-A"],
      [{ target: { transport: "http", url: everything.url }, secrets: { env: { A: "b" } } }, "/secrets/env"],
      [{ target: { transport: "stdio", command: "node", cwd: "relative/dir" } }, "/target/cwd"],
      [{ target: { transport: "stdio", command: "node", env: { "BAD NAME": "x" } } }, "/target/env/BAD NAME"],
      [{ target: { transport: "stdio", command: "node" }, bearer: "t" }, "/bearer"],
    ];
    for (const [body, path] of cases) {
      const answer = await errorOf(await consoleApi(services).sources.importMcpServer(send("/api/sources/mcp", body)));
      expect({ path, status: answer.status, code: answer.code }).toEqual({ path, status: 422, code: "invalid_body" });
      expect(answer.issues?.map((issue) => issue.path)).toContain(path);
    }
    const url = await errorOf(
      await consoleApi(services).sources.importMcpServer(
        send("/api/sources/mcp", { target: { transport: "http", url: "file:///etc/passwd" } }),
      ),
    );
    expect(url).toMatchObject({ status: 422, code: "invalid_options" });
    const closed = await errorOf(
      await consoleApi(services).sources.testMcp(
        send("/api/sources/mcp/test", { target: { transport: "http", url: "http://127.0.0.1:1/mcp" } }),
      ),
    );
    expect(closed).toMatchObject({ status: 422, code: "server_unreachable" });
  });
});
