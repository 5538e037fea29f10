import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { importMcp } from "@/lib/integrations/mcp/import-mcp";
import { getServices, type Services } from "@/lib/services";
import { alive, EVERYTHING, eventually, stdioTarget } from "../support/mcp-servers";
import { tempDir, testServices } from "../support/services";

// The console as the server opens it (getServices, with its configuration from the environment)
// starts its MCP sources by itself: a stdio server runs before anything calls one of its tools.

let started: Services | undefined;
const saved = { ...process.env };

afterAll(async () => {
  await started?.mcp.closeAll();
  started?.close();
  process.env = saved;
});

it("a console opened by getServices runs its stdio MCP servers before any call", async () => {
  const dir = tempDir();
  const dbFile = path.join(dir, "console.db");
  const first = testServices({ CONSOLE_DB: dbFile, CONSOLE_STATE_DIR: dir });
  let sourceId: string;
  try {
    sourceId = (await importMcp(first, { target: stdioTarget(EVERYTHING, ["stdio"]), prefix: "ev_" })).source.id;
  } finally {
    await first.mcp.closeAll();
    first.close();
  }

  Object.assign(process.env, { CONSOLE_DB: dbFile, CONSOLE_STATE_DIR: dir, LOG_LEVEL: "silent" });
  started = await getServices();
  const services = started;
  await eventually(() => services.mcp.status(sourceId)?.state === "connected", 20_000);
  const { pid } = services.mcp.status(sourceId)!;
  expect(alive(pid!)).toBe(true);
  // Nothing was called: the process is the one the start made, and the first call uses it.
  expect(await services.executor.call("ev_echo", { message: "up" })).toMatchObject({ ok: true });
  expect(services.mcp.status(sourceId)?.pid).toBe(pid);
});
