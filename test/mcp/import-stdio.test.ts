import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importMcp, type McpImportDeps } from "@/lib/integrations/mcp/import-mcp";
import type { Services } from "@/lib/services";
import { removeSource } from "@/lib/sources";
import { alive, EVERYTHING, eventually, stdioTarget } from "../support/mcp-servers";
import { tempDir, testServices } from "../support/services";
import { valueOf } from "../support/outcomes";

// Imports over stdio: the MCP "everything" reference server and a small fixture server, both run
// by the console as child processes; every call goes through the console's executor.

let services: Services;
let deps: McpImportDeps;
let dbFile: string;

beforeAll(() => {
  dbFile = path.join(tempDir(), "console.db");
  // A variable of the console's own environment that a stdio server must never see.
  process.env.AGUI_IMPORT_TEST_SECRET = "console-only";
  services = testServices({ CONSOLE_DB: dbFile, ADMIN_TOKEN: "admin-token-never-passed-on-0123456789" });
  deps = services;
});
afterAll(async () => {
  await services.mcp.closeAll();
  services.close();
  delete process.env.AGUI_IMPORT_TEST_SECRET;
});

describe("importing the everything server over stdio", () => {
  let sourceId: string;

  beforeAll(async () => {
    const result = await importMcp(deps, { target: stdioTarget(EVERYTHING, ["stdio"]), prefix: "ev_" });
    sourceId = result.source.id;
    expect(result.source).toMatchObject({ kind: "mcp", name: "Everything Reference Server", status: "ok", hasSecret: false });
    expect(result.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["ev_echo", "ev_get-sum", "ev_get-structured-content", "ev_get-env", "ev_toggle-simulated-logging"]),
    );
    // The one tool that only runs as an MCP task is left out, and the import says so.
    expect(result.tools.map((t) => t.name)).not.toContain("ev_simulate-research-query");
    expect(result.warnings).toEqual([expect.stringContaining('"simulate-research-query" skipped: it only runs as an MCP task')]);
  });

  it("calls echo, get-sum and get-structured-content through the executor", async () => {
    expect(valueOf(await services.executor.call("ev_echo", { message: "hi" }))).toBe("Echo: hi");
    expect(valueOf(await services.executor.call("ev_get-sum", { a: 2, b: 3 }))).toBe("The sum of 2 and 3 is 5.");
    const weather = valueOf(await services.executor.call("ev_get-structured-content", { location: "New York" }));
    expect(weather).toEqual({ temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) });
    // The console checks arguments against the server's schema before anything is sent.
    expect(await services.executor.call("ev_get-sum", { a: "two" })).toMatchObject({ ok: false, error: { kind: "invalid_arguments" } });
  });

  it("registers the server's schemas and annotations as the tools' policy", () => {
    const structured = services.registry.get("ev_get-structured-content")!;
    expect(structured).toMatchObject({ kind: "mcp", sourceId, binding: { remoteName: "get-structured-content" } });
    expect(structured.outputSchema).toMatchObject({ type: "object", required: ["temperature", "conditions", "humidity"] });
    // Its draft-07 $schema is dropped: the console validates with JSON Schema 2020-12.
    expect(structured.inputSchema.$schema).toBeUndefined();
    expect(structured.policy).toMatchObject({ effects: "read", confirm: false, idempotent: true, openWorld: false, tags: ["mcp"] });
    // The server's own hints are kept as it gave them, for the tool's page.
    const hints = (structured.binding as { annotations: Record<string, boolean> }).annotations;
    expect(hints).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(Object.values(hints).every((hint) => typeof hint === "boolean")).toBe(true);
    expect(services.registry.get("ev_toggle-simulated-logging")!.policy).toMatchObject({
      effects: "write",
      confirm: false,
      idempotent: false,
    });
    expect(services.registry.get("ev_gzip-file-as-resource")!.policy).toMatchObject({ effects: "write", openWorld: true });
  });

  it("runs the server with the default environment only: none of the console's variables reach it", async () => {
    const text = String(valueOf(await services.executor.call("ev_get-env", {})));
    expect(text).toContain("PATH");
    expect(text).not.toContain("AGUI_IMPORT_TEST_SECRET");
    expect(text).not.toContain("console-only");
    expect(text).not.toContain("admin-token-never-passed-on");
  });

  it("rebuilds the tools' handlers after a restart of the console, connecting on the first call", async () => {
    const again = testServices({ CONSOLE_DB: dbFile });
    try {
      expect(again.mcp.status(sourceId)).toBeUndefined();
      expect(valueOf(await again.executor.call("ev_echo", { message: "after restart" }))).toBe("Echo: after restart");
      expect(again.mcp.status(sourceId)).toMatchObject({ state: "connected", pid: expect.any(Number) });
    } finally {
      await again.mcp.closeAll();
      again.close();
    }
  });

  it("a console starting connects its MCP sources: the server runs before any call", async () => {
    const again = testServices({ CONSOLE_DB: dbFile });
    try {
      await again.mcp.connectAll();
      const { pid } = again.mcp.status(sourceId)!;
      expect(again.mcp.status(sourceId)).toMatchObject({ state: "connected" });
      expect(alive(pid!)).toBe(true);
      // The first call uses that connection.
      expect(valueOf(await again.executor.call("ev_echo", { message: "already up" }))).toBe("Echo: already up");
      expect(again.mcp.status(sourceId)?.pid).toBe(pid);
    } finally {
      await again.mcp.closeAll();
      again.close();
    }
  });

  it("closes the server's process when the source is removed", async () => {
    const pid = services.mcp.status(sourceId)!.pid!;
    expect(alive(pid)).toBe(true);
    expect(await removeSource(services, sourceId)).toBeGreaterThan(10);
    expect(services.mcp.status(sourceId)).toBeUndefined();
    expect(services.registry.get("ev_echo")).toBeUndefined();
    await eventually(() => !alive(pid));
  });
});
