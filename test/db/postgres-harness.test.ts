// The test harness's own promises: a throw-away server that fails to start says why (its log)
// instead of hanging or failing with nothing, and leaves no folder behind.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { freePort, startEmbeddedPostgres } from "../support/postgres-server";
import { postgresDatabase } from "../support/postgres";

describe("embedded PostgreSQL for tests", () => {
  it("a server that cannot start (its port is taken) rejects with its log, and its folder is gone", async () => {
    const port = await freePort();
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
    // A folder of its own: other processes (a bench, another run) may start servers in the system's temporary folder meanwhile.
    const parentDir = fs.mkdtempSync(path.join(os.tmpdir(), "agui-console-harness-"));
    fs.chmodSync(parentDir, 0o755); // the server's own user must get through it
    try {
      const error = await startEmbeddedPostgres({ port, parentDir }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        /^embedded PostgreSQL failed to start\n--- its log ---\n[\s\S]*could not (bind|create listen socket)/,
      );
      expect(fs.readdirSync(parentDir)).toEqual([]);
    } finally {
      fs.rmSync(parentDir, { recursive: true, force: true });
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 60_000);

  describe("a test file's database", () => {
    const database = postgresDatabase();

    it("is a new, empty UTF-8 database of its own on a loopback server", async () => {
      const url = new URL(database.url);
      expect(url.hostname).toBe("127.0.0.1");
      expect(url.pathname).toMatch(/^\/t_[0-9a-f]{8}_[0-9a-f]{12}$/);
      const client = new pg.Client({ connectionString: database.url });
      client.on("error", () => {});
      await client.connect();
      try {
        const { rows } = await client.query<{ tables: number; encoding: string; collation: string }>(
          `select (select count(*)::int from information_schema.tables where table_schema = 'public') as tables,
                  pg_encoding_to_char(encoding) as encoding, datcollate as collation
             from pg_database where datname = current_database()`,
        );
        expect(rows[0]!.tables).toBe(0);
        expect(rows[0]!.encoding).toBe("UTF8");
        if (!process.env.DATABASE_URL) expect(rows[0]!.collation).toBe("C.UTF-8");
      } finally {
        await client.end();
      }
    });
  });
});
