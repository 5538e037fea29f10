import fs from "node:fs";
import { randomUUID } from "node:crypto";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import { isPending } from "@/lib/execution";
import { McpConnection } from "@/lib/integrations/mcp/connection";
import { McpServerUnreachable } from "@/lib/integrations/mcp/import-errors";
import { importMcp } from "@/lib/integrations/mcp/import-mcp";
import { createLogger } from "@/lib/log";
import { OutboundGuard } from "@/lib/net";
import type { Services } from "@/lib/services";
import { removeSource } from "@/lib/sources";
import { DuplicateTool } from "@/lib/tools";
import { parseFrames, userMessage } from "../support/agui-client";
import { alive, eventually, FIXTURE, stdioTarget } from "../support/mcp-servers";
import { tempDir, testServices } from "../support/services";
import { valueOf } from "../support/outcomes";

// Imports of a small fixture server (test/support/mcp-fixture-server.mjs) over stdio: the parts of
// an import that a well-behaved reference server never exercises.

let services: Services;
let sourceId: string;

beforeAll(async () => {
  services = testServices({ AGENT_STREAM_DELAY_MS: "0" });
  const result = await importMcp(services, {
    target: stdioTarget(FIXTURE, [], { FIXTURE_BAD_TOOL: "1" }),
    secrets: { env: { FIXTURE_TOKEN: "fixture-secret-value" } },
    prefix: "fx_",
  });
  sourceId = result.source.id;
  expect(result.warnings).toEqual([
    expect.stringMatching(/^Tool "broken" skipped: inputSchema\.type/),
    'Tool "add.tool" is registered as "fx_add_tool"',
  ]);
});
afterAll(async () => {
  await services.mcp.closeAll();
  services.close();
});

describe("an import of the fixture server", () => {
  it("reads every page of tools, skipping the malformed one with a warning", () => {
    expect(
      services.registry
        .all()
        .filter((tool) => tool.sourceId === sourceId)
        .map((tool) => tool.name),
    ).toEqual(["fx_add_tool", "fx_crash", "fx_env_names", "fx_say", "fx_wipe"]);
  });

  it("keeps the secret environment out of every listing, and gives it to the process only", async () => {
    const source = (await services.sources.get(sourceId))!;
    expect(source).toMatchObject({ auth: { kind: "env", name: "FIXTURE_TOKEN" }, hasSecret: true });
    expect(JSON.stringify(await services.sources.list())).not.toContain("fixture-secret-value");
    const answer = await consoleApi(services).sources.list(new Request("http://127.0.0.1/api/sources", { headers: { host: "127.0.0.1" } }));
    expect(await answer.text()).not.toContain("fixture-secret-value");
    const env = valueOf(await services.executor.call("fx_env_names", {})) as { names: string[] };
    expect(env.names).toContain("FIXTURE_TOKEN");
    expect(env.names.filter((name) => !["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"].includes(name))).toEqual([
      "FIXTURE_BAD_TOOL",
      "FIXTURE_TOKEN",
    ]);
  });

  it("asks for approval before a tool that does not say it is safe (no annotations: destructive)", async () => {
    expect(services.registry.get("fx_wipe")!.policy).toMatchObject({ effects: "destructive", confirm: true, openWorld: true });
    const ctx = { principal: "alice", scope: "agui:t-wipe", threadId: "t-wipe", runId: "r-wipe", surface: "agui" as const };
    const outcome = await services.executor.call("fx_wipe", { target: "db" }, { callId: "c-wipe", ctx });
    expect(isPending(outcome)).toBe(true);
    const approvalId = isPending(outcome) ? outcome.pending.approvalId : "";
    await services.approvals.decide(approvalId, { approved: true, decidedBy: "operator" });
    expect(valueOf(await services.executor.call("fx_wipe", { target: "db" }, { callId: "c-wipe", ctx }))).toBe("wiped db");
  });

  it("refreshes the source when the server says its tool list changed, keeping operators' settings", async () => {
    await services.registry.update("fx_say", { approval: "always", timeoutMs: 1234 });
    expect(valueOf(await services.executor.call("fx_add_tool", {}))).toBe("added_6");
    await eventually(() => services.registry.get("fx_added_6"));
    expect(services.registry.get("fx_say")).toMatchObject({ approval: "always", policy: { timeoutMs: 1234 } });
    expect(await services.sources.get(sourceId)).toMatchObject({ status: "ok", toolCount: 6 });
  });

  it("is called by the demo agent in a chat (`/tool {json}`), and a destructive tool interrupts the run for approval", async () => {
    const agui = consoleApi(services).agui;
    const run = async (text: string) => {
      const input = { threadId: `t-${randomUUID()}`, runId: `r-${randomUUID()}`, messages: [userMessage(text)] };
      const response = await agui.run(
        new Request("http://127.0.0.1:3000/api/agui/demo", {
          method: "POST",
          headers: { host: "127.0.0.1:3000", "content-type": "application/json" },
          body: JSON.stringify(input),
        }),
        { params: Promise.resolve({ agent: "demo" }) },
      );
      return parseFrames(await response.text());
    };
    const listed = await run("/fx_env_names {}");
    expect(listed.find((e) => e.type === EventType.TOOL_CALL_RESULT)).toMatchObject({ content: expect.stringContaining("FIXTURE_TOKEN") });
    const wiped = await run('/fx_wipe {"target": "everything"}');
    expect(wiped.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: "interrupt", interrupts: [expect.objectContaining({ reason: "tool_call" })] },
    });
  });

  it("restarts the server's process after it dies, and calls work again", async () => {
    const before = services.mcp.status(sourceId)!;
    const first = before.pid!;
    expect(valueOf(await services.executor.call("fx_crash", {}))).toBe("stopping");
    await eventually(() => !alive(first));
    const pid = await eventually(() => {
      const status = services.mcp.status(sourceId);
      return status?.state === "connected" && status.pid !== first && status.pid;
    });
    expect(services.mcp.status(sourceId)!.restarts).toBe(before.restarts + 1);
    expect((valueOf(await services.executor.call("fx_env_names", {})) as { pid: number }).pid).toBe(pid);
  });

  it("is all or nothing: a second import whose names are taken leaves no source and no process", async () => {
    const sources = (await services.sources.list()).length;
    const tools = services.registry.count();
    await expect(importMcp(services, { target: stdioTarget(FIXTURE), prefix: "fx_" })).rejects.toThrow(DuplicateTool);
    expect(await services.sources.list()).toHaveLength(sources);
    expect(services.registry.count()).toBe(tools);
  });

  it("refuses a command that does not start, saying why", async () => {
    await expect(importMcp(services, { target: { transport: "stdio", command: "/nonexistent/mcp-server" } })).rejects.toThrow(
      McpServerUnreachable,
    );
  });

  it("says why a server would not start, with its last stderr line and the secrets it was given blanked", async () => {
    const refused = importMcp(services, {
      target: stdioTarget(FIXTURE, [], { FIXTURE_REFUSE: "1" }),
      secrets: { env: { FIXTURE_TOKEN: "tok-3141592653" } },
      prefix: "refused_",
    });
    await expect(refused).rejects.toThrow(McpServerUnreachable);
    const message = await refused.catch((error: Error) => error.message);
    expect(message).toContain("refusing token ***");
    expect(message).not.toContain("tok-3141592653");
  });

  it("ends the process when the source is removed, and its tools go", async () => {
    const pid = services.mcp.status(sourceId)!.pid!;
    await removeSource(services, sourceId);
    await eventually(() => !alive(pid));
    expect(services.registry.all().filter((tool) => tool.sourceId === sourceId)).toEqual([]);
  });
});

describe("a stdio server that keeps failing to start", () => {
  it("is started again with growing delays until it runs, then works", async () => {
    const lines: string[] = [];
    const logger = createLogger("debug", (line) => lines.push(line));
    // The working directory goes away under the running server: every start fails until it is back.
    const cwd = tempDir("mcp-cwd-");
    const connection = new McpConnection({
      target: { ...stdioTarget(FIXTURE), cwd },
      outbound: new OutboundGuard(),
      logger,
      label: "backoff",
      backoff: { baseMs: 40, maxMs: 320 },
      stableMs: 60_000,
    });
    try {
      await connection.callTool("say", { text: "one" }, new AbortController().signal);
      const first = connection.pid!;
      fs.rmSync(cwd, { recursive: true });
      process.kill(first);
      const delays = () =>
        lines
          .map((line) => JSON.parse(line) as { message: string; delayMs?: number })
          .filter((entry) => entry.message === "mcp server process restarting")
          .map((entry) => entry.delayMs);
      await eventually(() => delays().length >= 4);
      expect(delays().slice(0, 4)).toEqual([40, 80, 160, 320]);
      expect(connection.lastError).toMatch(/ENOENT|spawn/);
      fs.mkdirSync(cwd);
      await eventually(() => connection.state === "connected");
      expect(connection.pid).not.toBe(first);
      const result = await connection.callTool("say", { text: "two" }, new AbortController().signal);
      expect(result.content).toEqual([{ type: "text", text: "said: two" }]);
    } finally {
      await connection.close();
    }
    expect(connection.state).toBe("closed");
  });
});
