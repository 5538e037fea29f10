import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { consoleApi } from "@/lib/api";
import { createNodeServer, listenLocal, type WebHandler } from "@/lib/http/node-adapter";
import type { Services } from "@/lib/services";
import { tempDir, testServices } from "../support/services";

interface Served {
  services: Services;
  dataDir: string;
  file: string;
  health(): Promise<{ status: number; body: { ok: boolean; db: { ok: boolean; fault?: string; error?: string } } }>;
  /** A write: set get_weather's approval policy. */
  write(approval: "always" | "never"): Promise<{ status: number; body: { error?: { code: string; message: string } } }>;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The console's health and one write route over real HTTP on 127.0.0.1, on a database in data/ of a temp folder. */
async function serve(): Promise<Served> {
  const dataDir = path.join(tempDir(), "data");
  const file = path.join(dataDir, "console.db");
  const services = testServices({ CONSOLE_DB: file });
  const api = consoleApi(services);
  const server = createNodeServer([
    { method: "GET", path: "/api/health", handler: api.health.get as WebHandler },
    { method: "PATCH", path: "/api/tools/[name]", handler: api.tools.update as WebHandler },
  ]);
  const base = await listenLocal(server);
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    services.close();
  });
  return {
    services,
    dataDir,
    file,
    health: async () => {
      const response = await fetch(`${base}/api/health`);
      return { status: response.status, body: await response.json() };
    },
    write: async (approval) => {
      const response = await fetch(`${base}/api/tools/get_weather`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ approval }),
      });
      return { status: response.status, body: await response.json() };
    },
  };
}

describe("GET /api/health checks the database file the console opened", () => {
  it("answers 200 while the file is in place and writable", async () => {
    const served = await serve();
    expect(await served.health()).toMatchObject({ status: 200, body: { ok: true, db: { ok: true, tools: 5 } } });
  });

  it("answers 503 naming the fault when the data directory is removed (writes would go into a deleted file)", async () => {
    const served = await serve();
    fs.rmSync(served.dataDir, { recursive: true, force: true });
    const { status, body } = await served.health();
    expect(status).toBe(503);
    expect(body).toMatchObject({ ok: false, db: { ok: false, fault: "file_missing", error: expect.stringMatching(/deleted or moved/) } });
  });

  it("answers 503 when the file at the path is no longer the one opened (replaced by a copy)", async () => {
    const served = await serve();
    await served.services.runs.flush();
    fs.copyFileSync(served.file, `${served.file}.copy`);
    fs.renameSync(`${served.file}.copy`, served.file);
    const { status, body } = await served.health();
    expect(status).toBe(503);
    expect(body).toMatchObject({ ok: false, db: { ok: false, fault: "file_replaced", error: expect.stringMatching(/replaced/) } });
  });
});

describe("an external lock on the database", () => {
  it("makes writes and health answer 503 within about a second instead of freezing the process, and both recover once it is released", async () => {
    const served = await serve();
    const other = new Database(served.file);
    cleanups.push(() => void other.close());
    other.exec("begin exclusive");
    try {
      const started = performance.now();
      const write = await served.write("always");
      const elapsed = performance.now() - started;
      expect(write).toEqual({
        status: 503,
        body: { error: { code: "database_unavailable", message: "The database is locked by another process; try again in a moment" } },
      });
      expect(elapsed).toBeLessThan(1000);
      const health = await served.health();
      expect(health).toMatchObject({ status: 503, body: { ok: false, db: { ok: false, fault: "locked" } } });
    } finally {
      other.exec("rollback");
    }
    // Nothing was written by the refused request.
    expect(served.services.registry.get("get_weather")?.policy.confirm).toBe(false);
    expect((await served.write("always")).status).toBe(200);
    expect((await served.health()).status).toBe(200);
  });
});
